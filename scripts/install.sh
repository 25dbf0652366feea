#!/bin/sh
# Install bunker, one self-contained binary (no Node or Bun needed):
#
#   curl -fsSL https://github.com/bunker-dev/bunker/releases/latest/download/install.sh | sh
#
# Settings (environment variables):
#   BUNKER_RELEASE_URL  where the binaries and SHA256SUMS are
#                       (default: the latest GitHub release; for a fixed version use
#                       https://github.com/bunker-dev/bunker/releases/download/vX.Y.Z)
#   BUNKER_INSTALL      the directory to install into (default: ~/.local/bin)
#   BUNKER_TARGET       skip detection and install this build: linux-x64, linux-arm64,
#                       linux-x64-musl, darwin-x64, darwin-arm64 or windows-x64
#
# The binary is checked against SHA256SUMS before anything is installed;
# on a mismatch nothing is installed.
set -eu

TARGETS="linux-x64 linux-arm64 linux-x64-musl darwin-x64 darwin-arm64 windows-x64"

say() { printf '%s\n' "$*"; }
die() {
  printf 'bunker install: %s\n' "$*" >&2
  exit 1
}
has() { command -v "$1" >/dev/null 2>&1; }

# Linux C library: musl (Alpine and friends) or glibc.
is_musl() {
  if has ldd; then
    # glibc's ldd prints "ldd (GNU libc) …"; musl's prints "musl libc" on stderr.
    libc_info=$(ldd --version 2>&1 || true)
    case $libc_info in
      *musl*) return 0 ;;
      *GLIBC* | *"GNU libc"* | *"GNU C Library"*) return 1 ;;
    esac
  fi
  for loader in /lib/ld-musl-*.so.1; do
    [ -e "$loader" ] && return 0
  done
  return 1
}

detect_target() {
  uname_s=$(uname -s)
  uname_m=$(uname -m)
  case $uname_s in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) die "no bunker build for the operating system '$uname_s' (builds exist for: $TARGETS)" ;;
  esac
  case $uname_m in
    x86_64 | amd64 | x64) arch=x64 ;;
    aarch64 | arm64 | armv8*) arch=arm64 ;;
    *) die "no bunker build for the CPU '$uname_m' on $os (builds exist for: $TARGETS)" ;;
  esac
  # An x64 shell under Rosetta on Apple silicon: prefer the native build.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    arch=arm64
  fi
  libc=""
  if [ "$os" = linux ] && is_musl; then
    libc=-musl
  fi
  printf '%s-%s%s\n' "$os" "$arch" "$libc"
}

is_known_target() {
  for t in $TARGETS; do
    [ "$t" = "$1" ] && return 0
  done
  return 1
}

download() { # URL FILE
  if has curl; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif has wget; then
    wget -q -O "$2" "$1"
  else
    die "needs curl or wget to download; install one of them and run this again"
  fi
}

sha256_of() { # FILE
  if has sha256sum; then
    sum=$(sha256sum "$1")
  elif has shasum; then
    sum=$(shasum -a 256 "$1")
  elif has openssl; then
    sum=$(openssl dgst -sha256 -r "$1")
  else
    die "needs sha256sum, shasum or openssl to verify the download; install one of them and run this again"
  fi
  printf '%s\n' "${sum%% *}" | tr 'A-F' 'a-f'
}

path_advice() { # DIR
  shell_name=${SHELL:-sh}
  case ${shell_name##*/} in
    bash) rc="$HOME/.bashrc" line="export PATH=\"$1:\$PATH\"" ;;
    zsh) rc="${ZDOTDIR:-$HOME}/.zshrc" line="export PATH=\"$1:\$PATH\"" ;;
    fish) rc="$HOME/.config/fish/config.fish" line="fish_add_path \"$1\"" ;;
    *) rc="$HOME/.profile" line="export PATH=\"$1:\$PATH\"" ;;
  esac
  say ""
  say "$1 is not on your PATH. To add it, run:"
  say ""
  say "  echo '$line' >> \"$rc\""
  say ""
  say "then open a new terminal (or run: $line) and start bunker with: bunker"
}

main() {
  base_url=${BUNKER_RELEASE_URL:-https://github.com/bunker-dev/bunker/releases/latest/download}
  base_url=${base_url%/}
  if [ -n "${BUNKER_INSTALL:-}" ]; then
    install_dir=$BUNKER_INSTALL
  elif [ -n "${HOME:-}" ]; then
    install_dir=$HOME/.local/bin
  else
    die "HOME is not set; set BUNKER_INSTALL to the directory to install into"
  fi

  if [ -n "${BUNKER_TARGET:-}" ]; then
    target=$BUNKER_TARGET
  else
    target=$(detect_target)
  fi
  is_known_target "$target" || die "no bunker build for $target (builds exist for: $TARGETS; set BUNKER_TARGET to pick one)"

  asset=bunker-$target
  name=bunker
  if [ "${target%%-*}" = windows ]; then
    asset=$asset.exe
    name=bunker.exe
  fi

  tmp=$(mktemp -d 2>/dev/null || mktemp -d -t bunker-install)
  trap 'rm -rf "$tmp"' EXIT
  trap 'exit 130' INT TERM

  say "Downloading $asset from $base_url"
  download "$base_url/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $base_url/SHA256SUMS"
  download "$base_url/$asset" "$tmp/$asset" || die "could not download $base_url/$asset (is there a $target build in this release?)"

  expected=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS" | tr 'A-F' 'a-f')
  [ -n "$expected" ] || die "SHA256SUMS at $base_url lists no $asset; nothing was installed"
  actual=$(sha256_of "$tmp/$asset")
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $asset: expected $expected, got $actual. The download is corrupt or was tampered with; nothing was installed."
  fi

  mkdir -p "$install_dir" || die "could not create $install_dir; set BUNKER_INSTALL to a directory you can write"
  # Copy next to the destination, then rename: an existing bunker is replaced in one step.
  staged="$install_dir/.$name.install.$$"
  cp "$tmp/$asset" "$staged" || die "could not write to $install_dir; set BUNKER_INSTALL to a directory you can write"
  chmod 755 "$staged"
  mv -f "$staged" "$install_dir/$name" || {
    rm -f "$staged"
    die "could not write $install_dir/$name"
  }
  say "Installed $install_dir/$name (sha256 $actual)"

  if version=$("$install_dir/$name" --version 2>&1); then
    say "$version"
  else
    say "warning: $install_dir/$name --version failed: $version" >&2
    if [ "$target" = linux-x64-musl ]; then
      say "On Alpine, the musl build needs: apk add libstdc++ libgcc" >&2
    fi
  fi

  case ":${PATH:-}:" in
    *":$install_dir:"*) say "Run bunker in a project directory to start." ;;
    *) path_advice "$install_dir" ;;
  esac
}

main "$@"
