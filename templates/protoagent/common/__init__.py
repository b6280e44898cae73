"""{{name}}: a protoAgent plugin.

protoAgent imports this package and calls `register(registry)`. Everything the
plugin contributes (tools, routes, subagents) is registered there.
"""


def {{module}}_hello(name: str = "world") -> str:
    """Say hello from {{name}}."""
    return f"Hello, {name}, from {{name}}!"


try:  # inside protoAgent: expose the function as a LangChain tool
    from langchain_core.tools import tool

    {{module}}_hello_tool = tool({{module}}_hello)
except ImportError:  # outside the host (tests, linters): the plain function
    {{module}}_hello_tool = {{module}}_hello


def register(registry):
    registry.register_tool({{module}}_hello_tool)
