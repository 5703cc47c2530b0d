"""gno's version, in a module of its own so that core modules can read it without importing the
package's public API (which names the SDK and the engine)."""

__version__ = "0.1.0"
