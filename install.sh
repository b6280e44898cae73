#!/usr/bin/env bash
# Install `plugins` with cargo, then its shell completions for bash, zsh and fish, and its
# manual pages.
#
#   ./install.sh                 install into cargo's bin dir (~/.cargo/bin)
#   ./install.sh --root DIR      install into DIR/bin instead (relative to where you run it)
#   ./install.sh --no-completions  no shell completions and no manual pages
#   ./install.sh --dry-run       print the cargo install command, run nothing
#   ./install.sh --from-source   never download a release build
#
# When the project's GitHub repository is known (PLUGINS_REPOSITORY=owner/name, else
# `repository` in Cargo.toml, which is unset while no published release exists) and it
# publishes a release build of this version for the platform (Linux x86_64 and aarch64,
# macOS), that build is downloaded and checked against its SHA-256 instead.
# A source build uses cargo's `release` profile (no LTO: minutes on 2 cores); the published
# builds use the heavier `dist` profile (thin LTO, see Cargo.toml and release.yml).
set -euo pipefail

root=""
completions=1
dry_run=0
from_source=0
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
    --from-source) from_source=1; shift ;;
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
if [ -n "$root" ]; then
  bin="$root/bin/plugins"
else
  bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/plugins"
fi

# A `key = "value"` of Cargo.toml's [package] table (empty when it is not set).
toml_value() {
  sed -n '/^\[package\]/,/^\[/ s/^'"$1"' = "\(.*\)"$/\1/p' "$checkout/Cargo.toml" | head -n1
}

# The release build for this version and platform, if there may be one: its URL; else
# `why: <reason>` (why the build is from source).
release_url() {
  local repo target version
  # Cargo.toml's `repository` is the one place that names the project's home.
  repo="$(toml_value repository)"
  [ -n "${PLUGINS_REPOSITORY:-}" ] && repo="https://github.com/$PLUGINS_REPOSITORY"
  if [ -z "$repo" ]; then
    echo "why: no published release of \`plugins\` exists yet (Cargo.toml names no repository; PLUGINS_REPOSITORY=owner/name downloads from a GitHub repository's releases)"
    return 0
  fi
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) target=x86_64-unknown-linux-musl ;;
    Linux/aarch64 | Linux/arm64) target=aarch64-unknown-linux-gnu ;;
    Darwin/arm64) target=aarch64-apple-darwin ;;
    Darwin/x86_64) target=x86_64-apple-darwin ;;
    *)
      echo "why: no release build is made for $(uname -s)/$(uname -m)"
      return 0
      ;;
  esac
  version="$(toml_value version)"
  echo "${PLUGINS_RELEASE_BASE:-${repo%/}/releases/download}/v$version/plugins-$target.tar.gz"
}

# Download, verify and unpack the release build into $bin's directory; 1 if there is none.
prebuilt() {
  local url="$1" tmp want got
  if ! command -v curl >/dev/null 2>&1; then
    echo "building from source: curl is not installed to download $url"
    return 1
  fi
  tmp="$(mktemp -d)"
  curl -fsSL --retry 2 -o "$tmp/plugins.tar.gz" "$url" 2>/dev/null || return 1
  curl -fsSL --retry 2 -o "$tmp/plugins.tar.gz.sha256" "$url.sha256" 2>/dev/null || return 1
  want="$(cut -d' ' -f1 < "$tmp/plugins.tar.gz.sha256")"
  if command -v sha256sum >/dev/null 2>&1; then got="$(sha256sum "$tmp/plugins.tar.gz")"
  else got="$(shasum -a 256 "$tmp/plugins.tar.gz")"; fi
  got="${got%% *}"
  if [ "$want" != "$got" ]; then
    echo "install.sh: checksum mismatch for $url: expected $want, got $got" >&2
    exit 1
  fi
  tar -xzf "$tmp/plugins.tar.gz" -C "$tmp"
  mkdir -p "$(dirname "$bin")"
  cp "$tmp"/plugins-*/plugins "$bin.tmp" && mv "$bin.tmp" "$bin"
  echo "installed the release build from $url (sha256 $got)"
}

url=""
why="--from-source was given"
if [ "$from_source" = 0 ]; then
  url="$(release_url)"
  case "$url" in
    "why: "*) why="${url#why: }"; url="" ;;
  esac
fi
if [ "$dry_run" = 1 ]; then
  if [ -n "$url" ]; then
    echo "download $url (and its .sha256) into $(dirname "$bin"); if there is none:"
  else
    echo "building from source: $why"
  fi
  printf 'cargo'; printf ' %q' "${args[@]}"; echo
  exit 0
fi

if [ -n "$url" ] && prebuilt "$url"; then
  :
else
  if [ -n "$url" ]; then
    echo "building from source: no release build at $url (none is published for this version yet, or it cannot be reached)"
  else
    echo "building from source: $why"
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    echo "install.sh: cargo not found; install Rust from https://rustup.rs first" >&2
    exit 1
  fi
  cargo "${args[@]}"
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
  # The manual pages, generated by the binary from its own --help (`plugins man DIR`).
  "$bin" man "$data/man/man1" >/dev/null
  echo "manual pages: $data/man/man1 (man plugins, man plugins-install, ...)"
fi

"$bin" --version
case ":$PATH:" in
  *":$(dirname "$bin"):"*) ;;
  *) echo "note: $(dirname "$bin") is not on PATH" ;;
esac
