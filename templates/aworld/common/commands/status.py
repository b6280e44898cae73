"""`/{{slug}}-status`: a Python-backed slash command.

AWorld imports this module and calls `build_command(plugin, entrypoint)`, which must
return an `aworld_cli.core.command_system.Command`.
"""

NAME = "{{slug}}-status"
DESCRIPTION = "Show {{name}}'s state"


def render_status(state):
    """The text the command prints; pure, so it is easy to test."""
    completed = int((state or {}).get("completed_tasks", 0))
    return f"{{name}}: {completed} task(s) completed in this workspace"


def build_command(plugin, entrypoint):
    from aworld_cli.core.command_system import Command  # imported lazily: only the host has it

    class StatusCommand(Command):
        name = NAME
        description = DESCRIPTION

        async def execute(self, context, args=""):
            handle = getattr(context, "plugin_state", None)
            state = handle.read() if handle is not None else {}
            return render_status(state)

    return StatusCommand()
