#!/usr/bin/env bash
# The shell steps of hookwarden's GitHub Action (action.yml at the repository
# root), kept here so CI runs them outside GitHub (tools/release's
# TestActionScript, against the locally built release).
#
#   hookwarden-action.sh install   download the release archive for this runner
#                                  (linux/darwin, amd64/arm64) and checksums.txt
#                                  from INPUT_RELEASE_URL/v<version>/, check its
#                                  SHA-256, unpack it under RUNNER_TEMP and add it
#                                  to GITHUB_PATH; output "path"
#   hookwarden-action.sh run       run `hookwarden audit` (INPUT_MODE=audit: the
#                                  text report in the log, SARIF to
#                                  INPUT_SARIF_FILE) or `hookwarden conform --check`
#                                  (INPUT_MODE=conform-check) on INPUT_PATHS;
#                                  output "exit-code" (0 clean, 1 findings or a
#                                  change), exit 0 so the SARIF upload still runs
#                                  (action.yml fails the job afterwards)
#
# Inputs come as environment variables (INPUT_VERSION, INPUT_RELEASE_URL,
# INPUT_MODE, INPUT_PATHS, INPUT_SARIF_FILE, INPUT_STRICT); GitHub's
# RUNNER_TEMP, GITHUB_PATH and GITHUB_OUTPUT are files and directories it
# provides (docs.github.com, "Workflow commands for GitHub Actions":
# GITHUB_PATH, GITHUB_OUTPUT). An unusable input, a failed download or a
# checksum mismatch exits 2 with one line "hookwarden-action: …" on stderr.
set -euo pipefail

die() { echo "hookwarden-action: $*" >&2; exit 2; }
need() { [ -n "${!1:-}" ] || die "$1 is not set"; }

sha256() { # file -> hex digest
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  else die "neither sha256sum nor shasum found"; fi
}

install() {
  need RUNNER_TEMP; need GITHUB_PATH; need GITHUB_OUTPUT; need INPUT_RELEASE_URL
  local version="${INPUT_VERSION:-}"
  version="${version#v}"
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
    die "version '${INPUT_VERSION:-}': want a released version such as 0.2.0 (the action's version input)"
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) die "runner OS $(uname -s): hookwarden is built for Linux and macOS" ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) die "runner architecture $(uname -m): hookwarden is built for amd64 and arm64" ;; esac
  local name="hookwarden_${version}_${os}_${arch}"
  local base="${INPUT_RELEASE_URL%/}/v${version}"
  local dir="$RUNNER_TEMP/hookwarden-$version"
  rm -rf "$dir" && mkdir -p "$dir"
  curl -fsSL --proto '=https,file' --retry 3 -o "$dir/$name.tar.gz" "$base/$name.tar.gz" || die "download $base/$name.tar.gz failed"
  curl -fsSL --proto '=https,file' --retry 3 -o "$dir/checksums.txt" "$base/checksums.txt" || die "download $base/checksums.txt failed"
  local want got
  want="$(awk -v n="$name.tar.gz" '$2 == n { print $1 }' "$dir/checksums.txt")"
  [ -n "$want" ] || die "checksums.txt has no line for $name.tar.gz"
  got="$(sha256 "$dir/$name.tar.gz")"
  [ "$got" = "$want" ] || die "$name.tar.gz: SHA-256 $got, checksums.txt says $want"
  tar -xzf "$dir/$name.tar.gz" -C "$dir"
  local bin="$dir/$name"
  "$bin/hookwarden" --version | grep -qx "hookwarden version $version" ||
    die "$bin/hookwarden --version does not report $version"
  echo "$bin" >> "$GITHUB_PATH"
  echo "path=$bin" >> "$GITHUB_OUTPUT"
  echo "hookwarden $version installed in $bin"
}

run() {
  need GITHUB_OUTPUT
  command -v hookwarden >/dev/null 2>&1 || die "hookwarden is not on PATH (run the install step first)"
  local -a paths strict=()
  read -r -a paths <<< "${INPUT_PATHS:-.}"
  [ "${#paths[@]}" -gt 0 ] || paths=(.)
  case "${INPUT_STRICT:-false}" in true) strict=(--strict) ;; false) ;; *) die "strict '${INPUT_STRICT}': want true or false" ;; esac
  local code=0
  case "${INPUT_MODE:-audit}" in
    audit)
      need INPUT_SARIF_FILE
      # The text report for the log; the SARIF file for code scanning.
      hookwarden audit ${strict[@]+"${strict[@]}"} -- "${paths[@]}" || true
      hookwarden audit --format sarif ${strict[@]+"${strict[@]}"} -- "${paths[@]}" > "$INPUT_SARIF_FILE" || code=$?
      ;;
    conform-check)
      hookwarden conform --check ${strict[@]+"${strict[@]}"} -- "${paths[@]}" || code=$?
      ;;
    *) die "mode '${INPUT_MODE}': want audit or conform-check" ;;
  esac
  [ "$code" -le 1 ] || die "hookwarden exited $code (an unusable invocation; see above)"
  echo "exit-code=$code" >> "$GITHUB_OUTPUT"
}

case "${1:-}" in
  install) install ;;
  run) run ;;
  *) die "usage: hookwarden-action.sh install|run" ;;
esac
