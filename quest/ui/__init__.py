"""The browser interface. `quest.ui.layout` (which imports Gradio) is imported only when needed."""
