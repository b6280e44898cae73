#!/usr/bin/env bash
# Install `plugins` with cargo, then its shell completions for bash, zsh and fish.
#
#   ./install.sh                 install into cargo's bin dir (~/.cargo/bin)
#   ./install.sh --root DIR      install into DIR/bin instead (relative to where you run it)
#   ./install.sh --no-completions
#   ./install.sh --dry-run       print the cargo install command, run nothing
set -euo pipefail

root=""
completions=1
dry_run=0
no_root() {
  echo "install.sh: --root needs a directory (--root DIR)" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --root) { [ $# -ge 2 ] && [ -n "$2" ] && [[ "$2" != -* ]]; } || no_root; root="$2"; shift 2 ;;
    --root=*) root="${1#--root=}"; [ -n "$root" ] || no_root; shift ;;
    --no-completions) completions=0; shift ;;
    --dry-run) dry_run=1; shift ;;
    # The comment block under the shebang, up to the first line that is not a comment.
    -h|--help) sed -n '1d; /^#/!q; s/^# \{0,1\}//; p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

# Resolve a relative --root against the caller's directory, before leaving it.
case "$root" in
  "" | /*) ;;
  *) root="$PWD/$root" ;;
esac

cd "$(dirname "$0")"
checkout="$PWD"
args=(install --path "$checkout" --locked --force)
[ -n "$root" ] && args+=(--root "$root")
if [ "$dry_run" = 1 ]; then
  printf 'cargo'; printf ' %q' "${args[@]}"; echo
  exit 0
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "install.sh: cargo not found; install Rust from https://rustup.rs first" >&2
  exit 1
fi
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
