#!/usr/bin/env bash
# The shell logic of action.yml, runnable (and tested) outside GitHub Actions.
#
#   scripts/action.sh install    put `plugins` on GITHUB_PATH: the release build for this
#                                runner, checksum-verified, else `cargo install --git`
#   scripts/action.sh validate   validate INPUT_PATH under each aoe profile in INPUT_AOE_API
#                                (annotations, a finding the profiles share annotated once,
#                                and a job summary), then write a SARIF log
#
# Inputs come as INPUT_* variables (see action.yml); GitHub's own variables are read as
# Actions sets them: GITHUB_SERVER_URL, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP. PLUGINS_REPOSITORY (owner/name) and
# PLUGINS_ACTION_REF are the action's own repository and ref (github.action_repository and
# github.action_ref): the repository whose releases it installs. A local action (uses:
# ./path, a checkout of this repository) has none, so it builds that checkout: what works
# while no published release of `plugins` exists yet.
set -euo pipefail

die() {
  echo "::error title=plugins action::$*"
  exit 2
}

# The release target built for this runner, or nothing (then: build from source).
target() {
  case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) echo x86_64-unknown-linux-musl ;;
    Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# Download and verify the prebuilt binary into $1; fails (1) when there is none.
prebuilt() {
  local dir="$1" target version base archive tmp
  target="$(target)"
  [ -n "$target" ] || { echo "no prebuilt plugins for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"; return 1; }
  version="$2"
  base="${GITHUB_SERVER_URL:-https://github.com}/$PLUGINS_REPOSITORY/releases"
  if [ "$version" = latest ]; then base="$base/latest/download"; else base="$base/download/$version"; fi
  archive="plugins-$target.tar.gz"
  [ "${RUNNER_OS:-}" = Windows ] && archive="plugins-$target.zip"
  tmp="$(mktemp -d)"
  if ! curl -fsSL --retry 3 -o "$tmp/$archive" "$base/$archive" 2>/dev/null ||
    ! curl -fsSL --retry 3 -o "$tmp/$archive.sha256" "$base/$archive.sha256" 2>/dev/null; then
    echo "no release asset $base/$archive"
    return 1
  fi
  local want got
  want="$(cut -d' ' -f1 < "$tmp/$archive.sha256")"
  got="$(sha256 "$tmp/$archive")"
  [ "$want" = "$got" ] || die "checksum mismatch for $base/$archive: expected $want, got $got"
  case "$archive" in
    *.zip) unzip -q "$tmp/$archive" -d "$tmp" ;;
    *) tar -xzf "$tmp/$archive" -C "$tmp" ;;
  esac
  mkdir -p "$dir"
  cp "$tmp/plugins-$target/"plugins* "$dir/"
  echo "installed the $version release build ($target), sha256 $got"
}

install() {
  local root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/plugins-action"
  local ref="${PLUGINS_ACTION_REF:-}" version="${INPUT_VERSION:-}"
  # An action used at a release tag (its ref v1.2.0, say) installs that release; otherwise
  # the newest.
  if [ -z "$version" ]; then
    case "$ref" in v[0-9]*) version="$ref" ;; *) version=latest ;; esac
  fi
  if [ -z "${PLUGINS_REPOSITORY:-}" ]; then
    local checkout
    checkout="$(cd "$(dirname "$0")/.." && pwd)"
    echo "building plugins from source at $checkout (a few minutes): a local action names no repository to download a release from"
    cargo install --locked --path "$checkout" --root "$root" --force
  elif ! prebuilt "$root/bin" "$version"; then
    echo "building plugins from source (a few minutes): no release build to install"
    local from=()
    case "$version" in
      latest)
        if [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then from=(--rev "$ref")
        elif [ -n "$ref" ]; then from=(--branch "$ref"); fi ;;
      *) from=(--tag "$version") ;;
    esac
    cargo install --locked --git "${GITHUB_SERVER_URL:-https://github.com}/$PLUGINS_REPOSITORY" \
      "${from[@]}" --root "$root" --force
  fi
  [ -n "${GITHUB_PATH:-}" ] && echo "$root/bin" >> "$GITHUB_PATH"
  "$root/bin/plugins" --version
}

# Copy stdin to stdout, leaving out an annotation (a ::error, ::warning or ::notice line)
# already in the file $1, and add each one printed to it; say how many were left out.
once() {
  local line dropped=0
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
      ::error\ *|::error::*|::warning\ *|::warning::*|::notice\ *|::notice::*)
        if grep -qxF -- "$line" "$1"; then
          dropped=$((dropped + 1))
          continue
        fi
        printf '%s\n' "$line" >> "$1" ;;
    esac
    printf '%s\n' "$line"
  done
  case "$dropped" in
    0) ;;
    1) echo "1 finding shared with an earlier profile is not annotated again" ;;
    *) echo "$dropped findings shared with an earlier profile are not annotated again" ;;
  esac
}

validate() {
  local path="${INPUT_PATH:-.}" status=0 common=()
  [ "${INPUT_STRICT:-true}" = true ] && common+=(--strict)
  [ "${INPUT_RECURSIVE:-false}" = true ] && common+=(--recursive)
  # Extra arguments, split on whitespace as a shell would (no quoting).
  read -r -a extra <<< "${INPUT_ARGS:-}"
  common+=(${extra[@]+"${extra[@]}"} --path "$path")
  read -r -a apis <<< "${INPUT_AOE_API:-15 12}"
  [ "${#apis[@]}" -gt 0 ] || apis=(15)
  # Each profile's run annotates what it finds; a finding two profiles share (the same
  # file, line, code and message: the same workflow command) is annotated once, by the first.
  local seen
  seen="$(mktemp)"
  for api in "${apis[@]}"; do
    if [ "${#apis[@]}" -gt 1 ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
      printf '\n#### aoe API %s\n' "$api" >> "$GITHUB_STEP_SUMMARY"
    fi
    echo "plugins validate --format github --aoe-api $api ${common[*]}"
    local code=0
    plugins validate --format github --aoe-api "$api" "${common[@]}" > "$seen.out" || code=$?
    [ "$code" -le "$status" ] || status="$code"
    once "$seen" < "$seen.out"
  done
  rm -f "$seen" "$seen.out"
  local sarif="${INPUT_SARIF_FILE:-}"
  if [ -n "$sarif" ]; then
    local code=0
    plugins validate --format sarif --aoe-api "${apis[0]}" "${common[@]}" > "$sarif" || code=$?
    # 0 and 1 both wrote a log; 2 means it could not run.
    if [ "$code" -le 1 ]; then
      [ -n "${GITHUB_OUTPUT:-}" ] && echo "sarif-file=$sarif" >> "$GITHUB_OUTPUT"
    else
      status=2
    fi
  fi
  exit "$status"
}

case "${1:-}" in
  install) install ;;
  validate) validate ;;
  *) echo "usage: scripts/action.sh install|validate" >&2; exit 2 ;;
esac
