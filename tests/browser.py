"""How the browser tests and the UI benchmark start Debian's Chromium (never a downloaded browser).

The flags keep headless Chromium off the network it would otherwise reach for at start (updates, sync,
QUIC), which this machine refuses, and let it run as root in a container (no sandbox, no GPU).
"""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
