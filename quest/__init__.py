"""Quest: a help desk for online-judge students, grounded in a searchable knowledge base."""

__version__ = "0.1.0"
