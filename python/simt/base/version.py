"""simt's version (the project's, CMakeLists.txt)."""
__version__ = "0.1.0"
