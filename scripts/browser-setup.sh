#!/usr/bin/env bash
# Installs what the browser test needs: Debian's Chromium and ChromeDriver (/usr/bin/chromium,
# /usr/bin/chromedriver). Needs root or sudo; does nothing when both are there. Safe to run again.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
command -v apt-get >/dev/null || { echo "browser-setup: no apt-get: install chromium and chromedriver yourself" >&2; exit 1; }
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
echo "browser-setup: installing Debian's chromium and chromium-driver (a minute or two) ..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
/usr/bin/chromium --version
