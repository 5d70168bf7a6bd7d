# Sourced by the scripts that run the real app (tests/e2e/run, tests/e2e/no-network,
# bench/app-load): `clean_user DIR` points HOME and the XDG folders at fresh folders under DIR, so
# that the app's settings, WebKit's caches and GTK's settings land there and not in $HOME.
clean_user() {
  export HOME="$1/home" XDG_CONFIG_HOME="$1/config" XDG_DATA_HOME="$1/data"
  export XDG_CACHE_HOME="$1/cache" XDG_RUNTIME_DIR="$1/runtime"
  mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
  chmod 700 "$XDG_RUNTIME_DIR"
  export GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
}
