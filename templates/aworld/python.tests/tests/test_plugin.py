import importlib.util
import os
import unittest

ROOT = os.path.join(os.path.dirname(__file__), "..")


def load(relative):
    path = os.path.join(ROOT, relative)
    spec = importlib.util.spec_from_file_location(relative.replace("/", "_")[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeState:
    def __init__(self):
        self.data = {}

    def update(self, values):
        self.data.update(values)


class PluginTest(unittest.TestCase):
    def test_hook_counts_completed_tasks(self):
        hook = load("hooks/task_completed.py")
        handle = FakeState()
        reply = hook.handle_event({"task_id": "t"}, {"completed_tasks": 2, "__plugin_state__": handle})
        self.assertEqual(reply, {"action": "allow"})
        self.assertEqual(handle.data, {"completed_tasks": 3})

    def test_hud_renders_one_line(self):
        hud = load("hud/status.py")
        lines = hud.render_lines({}, {"completed_tasks": 4})
        self.assertEqual(lines[0]["section"], "custom")
        self.assertIn("4 done", lines[0]["segments"])

    def test_status_text(self):
        status = load("commands/status.py")
        self.assertIn("1 task(s)", status.render_status({"completed_tasks": 1}))
        self.assertTrue(callable(status.build_command))


if __name__ == "__main__":
    unittest.main()
