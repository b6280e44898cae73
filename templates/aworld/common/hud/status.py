"""HUD provider: one status-bar segment with the number of completed tasks."""


def render_lines(context, plugin_state=None):
    completed = int((plugin_state or {}).get("completed_tasks", 0))
    return [
        {
            "section": "custom",
            "priority": 100,
            "segments": ["{{name}}", f"{completed} done"],
        }
    ]
