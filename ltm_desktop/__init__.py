"""LTM Desktop: private document search and shared long-term memory for every AI you use."""

__version__ = "0.1.0"
