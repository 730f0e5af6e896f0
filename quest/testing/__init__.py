"""Test helpers: fake model servers and a tiny embedding model, for Quest's tests and for operators testing their own setup."""
