"""{{name}}: an Agent of Empires plugin worker."""

__version__ = "0.1.0"
