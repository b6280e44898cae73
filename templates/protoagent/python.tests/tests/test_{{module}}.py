import importlib.util
import os
import sys
import unittest

ROOT = os.path.join(os.path.dirname(__file__), "..")


def load_plugin():
    """Import the plugin directory as a package, the way protoAgent's loader does."""
    name = "protoagent_plugin_{{module}}"
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "__init__.py"), submodule_search_locations=[ROOT])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class FakeRegistry:
    def __init__(self):
        self.tools = []

    def register_tool(self, tool):
        self.tools.append(tool)


class PluginTest(unittest.TestCase):
    def test_register_adds_the_tool(self):
        plugin = load_plugin()
        registry = FakeRegistry()
        plugin.register(registry)
        self.assertEqual(len(registry.tools), 1)

    def test_hello(self):
        plugin = load_plugin()
        self.assertEqual(plugin.{{module}}_hello("Ada"), "Hello, Ada, from {{name}}!")


if __name__ == "__main__":
    unittest.main()
