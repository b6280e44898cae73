import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from {{module}}.rpc import METHOD_NOT_FOUND, PARSE_ERROR, handle_line  # noqa: E402
from {{module}}.worker import METHODS, serve  # noqa: E402


class RpcTest(unittest.TestCase):
    def test_status_answers(self):
        reply = handle_line('{"jsonrpc": "2.0", "id": 1, "method": "status"}', METHODS)
        self.assertEqual(reply["id"], 1)
        self.assertTrue(reply["result"]["ok"])

    def test_unknown_method_and_bad_json(self):
        reply = handle_line('{"jsonrpc": "2.0", "id": 2, "method": "nope"}', METHODS)
        self.assertEqual(reply["error"]["code"], METHOD_NOT_FOUND)
        self.assertEqual(handle_line("{", METHODS)["error"]["code"], PARSE_ERROR)

    def test_notifications_get_no_reply(self):
        self.assertIsNone(handle_line('{"jsonrpc": "2.0", "method": "status"}', METHODS))

    def test_serve_loop(self):
        out = io.StringIO()
        serve(io.StringIO('{"jsonrpc": "2.0", "id": 7, "method": "initialize"}\n'), out)
        self.assertEqual(json.loads(out.getvalue())["result"]["name"], "{{name}}")


if __name__ == "__main__":
    unittest.main()
