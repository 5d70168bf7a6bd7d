# Shared by scripts/start and scripts/test: printing steps and installing what is missing.
# Sourced, not run. Everything here is idempotent: a second run installs nothing.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
START_TIME=$(date +%s)

# The scripts build from scratch more often than they rebuild after an edit (a fresh clone, CI):
# incremental compilation's caches were 0.8 GB of target/debug and pay off only on a rebuild.
# Set CARGO_INCREMENTAL=1 to keep them.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

step() {
  printf '\n==> [%4ss] %s\n' "$(($(date +%s) - START_TIME))" "$*"
}

# Runs as root directly, through sudo otherwise.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Installs the named Debian/Ubuntu packages that are not installed yet (apt-get update once, first).
apt_install_missing() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "system packages present: $*"
    return 0
  fi
  if ! command -v apt-get >/dev/null; then
    echo "missing system packages (${missing[*]}) and no apt-get: install them with your package manager" >&2
    return 1
  fi
  echo "installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Rust and Node are toolchains, not packages: say where to get them instead of fetching them.
require_toolchains() {
  command -v cargo >/dev/null || { echo "cargo not found: install Rust from https://rustup.rs" >&2; return 1; }
  command -v node >/dev/null || { echo "node not found: install Node.js 20.19+ from https://nodejs.org" >&2; return 1; }
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [[ $major -ge 20 ]] || { echo "Node.js $(node --version) is too old: Vite 7 needs 20.19+" >&2; return 1; }
  echo "cargo: $(cargo --version); node: $(node --version)"
}

# Installs ui/node_modules from the lockfile when it is missing or older than the lockfile.
ui_install() {
  (
    cd "$ROOT/ui"
    if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
      npm ci --no-audit --no-fund
    else
      echo "ui/node_modules is up to date"
    fi
  )
}

# Makes (or keeps) a Python virtual environment for the tests, target/$PY_VENV (default py-venv;
# under $CARGO_TARGET_DIR when set), with the pinned packages of the requirements files given
# (default: tests/python-requirements.txt), and sets PY to its python. A venv made from other
# requirements is made again from nothing, so nothing depends on what an earlier run left; a
# second run with the same files installs nothing. `PY_VENV=phoenix-venv py_venv FILE` keeps a
# second venv beside the first, so the two steps that use them do not remake each other's.
py_venv() {
  local reqs=("$@")
  [[ ${#reqs[@]} -gt 0 ]] || reqs=("$ROOT/tests/python-requirements.txt")
  local venv=${CARGO_TARGET_DIR:-$ROOT/target}/${PY_VENV:-py-venv}
  local want
  want=$(cat "${reqs[@]}")
  PY=$venv/bin/python
  if [[ -x $PY && -f $venv/requirements.installed ]] && [[ $(cat "$venv/requirements.installed") == "$want" ]]; then
    echo "$venv is up to date"
    return 0
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  local r args=()
  for r in "${reqs[@]}"; do args+=(-r "$r"); done
  "$PY" -m pip install --quiet --disable-pip-version-check --no-input "${args[@]}"
  printf '%s' "$want" >"$venv/requirements.installed"
  echo "made $venv ($("$PY" --version)): $("$PY" -m pip freeze --disable-pip-version-check | paste -sd' ')"
}

# The app scripts/start opens is the one `cargo test --workspace --features custom-protocol` builds
# (its integration tests need target/debug/arbor-app): building the app by itself unifies the
# features of the crates it shares with the other members differently, and the Tauri stack was
# compiled twice (about 2 minutes). Building what the tests build leaves nothing to do after
# scripts/test, and scripts/test nothing after scripts/start.
build_app() {
  cargo_ws test --workspace --features custom-protocol --no-run "$@"
}

# Cargo for the workspace's builds, with clippy's lints in them: clippy-driver (rustup's clippy
# component) compiles the workspace's own crates in rustc's place (cargo's RUSTC_WORKSPACE_WRAPPER;
# the dependencies are compiled by rustc as always), so the build that makes the binaries also
# lints them. `cargo clippy` after the build checked the ~580 dependencies again in check mode to
# lint what had just been compiled: 2.5-3 minutes of a 2-core machine, where the lints in the
# build add 40 s. Cargo keeps a wrapper's artifacts apart from rustc's, so every command that
# builds the workspace or runs its tests in the scripts goes through here (a plain `cargo test`
# after them compiles the workspace's crates once more, not the dependencies). Without clippy
# installed it is plain cargo; scripts/test needs clippy (need_clippy).
cargo_ws() {
  local driver
  driver=$(clippy_driver)
  if [[ -n $driver ]]; then
    RUSTC_WORKSPACE_WRAPPER=$driver cargo "$@"
  else
    cargo "$@"
  fi
}

# The toolchain's clippy-driver, or nothing when clippy is not installed.
clippy_driver() {
  local driver
  driver="$(rustc --print sysroot)/bin/clippy-driver"
  [[ -x $driver ]] && echo "$driver"
  return 0
}

need_clippy() {
  [[ -n $(clippy_driver) ]] || { echo "clippy is not installed: rustup component add clippy" >&2; return 1; }
}

# Fails when a build's output (file $1) has a warning of the workspace's crates, rustc's or
# clippy's: what `cargo clippy -- -D warnings` fails on. Cargo ends each crate's warnings with a
# "generated N warnings" line, and prints them again when a crate was built before.
no_warnings_in() {
  if grep -E '^warning: `[^`]+` \(.*\) generated [0-9]+ warnings?' "$1"; then
    echo "the build has warnings (above, and in $1): fix them, or run cargo clippy --workspace --all-targets --features custom-protocol to see them alone" >&2
    return 1
  fi
  echo "ok: no warning from rustc or clippy in the workspace's crates"
}

# Chinese, Japanese and Korean text in logs needs a CJK font: installs Noto CJK (Debian/Ubuntu
# fonts-noto-cjk) when fontconfig knows of none.
ensure_cjk_font() {
  if command -v fc-list >/dev/null && [[ -n $(fc-list :lang=zh family 2>/dev/null | head -n 1) ]]; then
    echo "a CJK font is installed: $(fc-list :lang=zh family | head -n 1)"
    return 0
  fi
  apt_install_missing fonts-noto-cjk
}

BUILD_PACKAGES=(build-essential pkg-config libwebkit2gtk-4.1-dev)
# The shellcheck package: actionlint checks the workflows' run: scripts with it when it is installed.
TEST_PACKAGES=(xvfb xauth webkit2gtk-driver imagemagick x11-utils xdotool strace python3-venv shellcheck)
# The browser tests use $CHROMIUM when set (CI images ship Chrome; Ubuntu's chromium is a snap).
[[ -n ${CHROMIUM:-} ]] || TEST_PACKAGES+=(chromium)
