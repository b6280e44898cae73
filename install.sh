#!/usr/bin/env bash
# Install `plugins` with cargo, then its shell completions for bash, zsh and fish.
#
#   ./install.sh                 install into cargo's bin dir (~/.cargo/bin)
#   ./install.sh --root DIR      install into DIR/bin instead
#   ./install.sh --no-completions
set -euo pipefail

root=""
completions=1
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root="$2"; shift 2 ;;
    --no-completions) completions=0; shift ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")"
if ! command -v cargo >/dev/null 2>&1; then
  echo "install.sh: cargo not found; install Rust from https://rustup.rs first" >&2
  exit 1
fi

args=(install --path . --locked --force)
[ -n "$root" ] && args+=(--root "$root")
cargo "${args[@]}"

if [ -n "$root" ]; then
  bin="$root/bin/plugins"
else
  bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/plugins"
fi

if [ "$completions" = 1 ]; then
  data="${XDG_DATA_HOME:-$HOME/.local/share}"
  config="${XDG_CONFIG_HOME:-$HOME/.config}"
  mkdir -p "$data/bash-completion/completions" "$data/zsh/site-functions" "$config/fish/completions"
  "$bin" completions bash > "$data/bash-completion/completions/plugins"
  "$bin" completions zsh > "$data/zsh/site-functions/_plugins"
  "$bin" completions fish > "$config/fish/completions/plugins.fish"
  echo "completions: bash, zsh ($data/zsh/site-functions must be on \$fpath), fish"
  echo "  powershell and elvish scripts are in completions/ (or: plugins completions SHELL)"
fi

"$bin" --version
case ":$PATH:" in
  *":$(dirname "$bin"):"*) ;;
  *) echo "note: $(dirname "$bin") is not on PATH" ;;
esac
