"""Hook on `task_completed`: count finished tasks in the plugin's workspace state."""


def handle_event(event, state):
    handle = state.get("__plugin_state__")
    completed = int(state.get("completed_tasks", 0)) + 1
    if handle is not None:
        handle.update({"completed_tasks": completed})
    return {"action": "allow"}
