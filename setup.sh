#!/usr/bin/env bash
# Installs everything the project needs on a fresh Debian machine: the Debian packages it uses
# (when missing), a virtual environment in .venv, and the project with its dev tools.
set -euo pipefail
cd "$(dirname "$0")"

debian_packages=()
command -v chromium >/dev/null 2>&1 || debian_packages+=(chromium)   # the browser tests
command -v rsvg-convert >/dev/null 2>&1 || debian_packages+=(librsvg2-bin)   # draws card art from SVG decks
[ -d /usr/share/carddecks/svg-standard ] || debian_packages+=(kdegames-card-data-kf5)   # the virtual table's deck
[ -d /usr/share/aisleriot/cards ] || debian_packages+=(gnome-cards-data)   # the training decks (training.synth, render_data)
if ((${#debian_packages[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${debian_packages[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
# torch first, at releases this kind of machine keeps on its disk (an unpinned torch would download a CUDA build).
case "$(uname -m)" in
    x86_64) torch_pins=(torch==2.14.1 torchvision==0.29.1) ;;
    aarch64) torch_pins=(torch==2.9.1 torchvision==0.24.1) ;;
    *) torch_pins=(torch torchvision) ;;
esac
.venv/bin/pip install -q --disable-pip-version-check "${torch_pins[@]}"
.venv/bin/pip install -q --disable-pip-version-check -e '.[dev]'
