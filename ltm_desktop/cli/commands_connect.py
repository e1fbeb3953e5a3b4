"""connect and tunnel: register LTM Desktop with AI apps, and reach it from claude.ai / ChatGPT through a tunnel."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from ltm_desktop.core.errors import InvalidInput, KnownError

CLIENTS = ("claude-desktop", "claude-code", "lm-studio", "cursor", "vscode", "codex", "windsurf")
PROVIDERS = ("cloudflare", "tailscale", "ngrok")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("connect", help="add LTM Desktop to an AI app's config (and check that it works)",
                       description="Write the ltm-desktop entry into an AI app's MCP config (merged, backed up), "
                                   "then run a live MCP round trip through exactly what was written.")
    p.add_argument("client", nargs="?", choices=CLIENTS, metavar="CLIENT", help=f"one of: {', '.join(CLIENTS)}")
    p.add_argument("--list", action="store_true", help="show which apps are installed and which are connected")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio: the app starts the server itself (default); http: the app calls 127.0.0.1 with a token")
    p.add_argument("--print", dest="print_only", action="store_true", help="show the entry (and install link); write nothing")
    p.add_argument("--remove", action="store_true", help="remove the entry (other entries are kept) and revoke its token")
    p.add_argument("--check", action="store_true", help="only run the live check against what the config says now")
    p.add_argument("--no-verify", action="store_true", help="write without the live check")
    p.add_argument("--mcpb", nargs="?", const=Path("ltm-desktop.mcpb"), type=Path, default=None, metavar="PATH",
                   help="claude-desktop only: build a Desktop Extension bundle to double-click (default ./ltm-desktop.mcpb)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=cmd_connect)

    tunnel = sub.add_parser("tunnel", help="reach the local server from claude.ai or ChatGPT through a tunnel")
    tsub = tunnel.add_subparsers(dest="tunnel_command", metavar="ACTION")
    for name, help_text in (("start", "start a tunnel in the background and print the connector URL"),
                            ("run", "run a tunnel in the foreground until Ctrl-C (what `start` runs)")):
        t = tsub.add_parser(name, help=help_text)
        t.add_argument("provider", choices=PROVIDERS, help="cloudflare (no account), tailscale (Funnel) or ngrok")
        t.add_argument("--token-name", default="connector", help="name of the token in the connector URL")
        if name == "start":
            t.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for the public URL")
        else:
            t.add_argument("--no-announce", action="store_true", help=argparse.SUPPRESS)
        t.set_defaults(handler=cmd_tunnel_start if name == "start" else cmd_tunnel_run)
    t = tsub.add_parser("stop", help="stop the tunnel, withdraw its URL and revoke the connector token")
    t.add_argument("--token-name", default="connector")
    t.set_defaults(handler=cmd_tunnel_stop)
    t = tsub.add_parser("status", help="is a tunnel running, and at which URL")
    t.add_argument("--json", action="store_true")
    t.set_defaults(handler=cmd_tunnel_status)
    tunnel.set_defaults(handler=lambda args: tunnel.print_help() or 2)


def _container():
    from ltm_desktop.bootstrap import Container

    return Container()


# ---- connect ---------------------------------------------------------------------------------------------


def cmd_connect(args: argparse.Namespace) -> int:
    from ltm_desktop.cli import connect_output as out

    svc = _container().client_registration
    if args.list:
        return out.print_statuses(svc.statuses(), args.json)
    if not args.client:
        raise InvalidInput("name a client (e.g. `ltm connect claude-desktop`) or use `ltm connect --list`")
    if args.mcpb is not None:
        if args.client != "claude-desktop":
            raise InvalidInput("--mcpb bundles are for claude-desktop only")
        path, outcome = svc.bundle(args.mcpb.expanduser().resolve(), verify=not args.no_verify)
        return out.print_bundle(path, outcome)
    if args.print_only:
        return out.print_snippet(svc.target(args.client), svc.snippet(args.client, args.transport), args.transport,
                                 args.json)
    if args.remove:
        return out.print_removed(svc.target(args.client), svc.remove(args.client), args.json)
    if args.check:
        return out.print_check(svc.target(args.client), svc.verify(args.client), args.json)
    outcome = svc.connect(args.client, args.transport, verify=not args.no_verify)
    return out.print_connected(outcome, args.json)


# ---- tunnel ----------------------------------------------------------------------------------------------


def _server_is_up(port: int) -> bool:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _answers_with_sse(port: int, host: str, secret: str) -> bool | None:
    """Whether the local server streams SSE to a 2025-era client arriving through the tunnel host."""
    import json
    import urllib.error
    import urllib.request

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "ltm-tunnel-probe", "version": "1"}}})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/t/{secret}/mcp", data=body.encode(), method="POST", headers={
        "Host": host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.headers.get("Content-Type", "").startswith("text/event-stream")
    except (urllib.error.URLError, OSError):
        return None


def _announce(container, public_url: str, token_name: str, provider: str) -> None:
    from urllib.parse import urlsplit

    from ltm_desktop.adapters.tunnel_processes import JSON_RESPONSE
    from ltm_desktop.services.tunnels import EXPOSURE, connector_url

    _, secret = container.tokens.create(token_name, replace=True)
    print(f"Public URL: {public_url}  ({provider})")
    print(f"\nConnector URL for claude.ai (Settings → Connectors → Add custom connector) or ChatGPT (developer mode "
          f"→ Create app, Authentication: No authentication):\n\n    {connector_url(public_url, secret)}\n")
    print(EXPOSURE.format(name=token_name))
    if provider == "cloudflare":
        print("A quick tunnel gets a new URL each time it starts: re-add the connector after a restart.")
    port = container.settings.http_port
    if not _server_is_up(port):
        print(f"\nWarning: the MCP HTTP server is not running on 127.0.0.1:{port}; the tunnel "
              "forwards to it. Start it with `ltm serve --http` or open the LTM Desktop app.", file=sys.stderr)
    elif JSON_RESPONSE[provider] and _answers_with_sse(port, urlsplit(public_url).hostname or "", secret):
        print(f"\nWarning: the server on 127.0.0.1:{port} answers with SSE streams, which a {provider} quick tunnel "
              "cannot carry. Restart it with `ltm serve --http --json-response`.", file=sys.stderr)


def cmd_tunnel_start(args: argparse.Namespace) -> int:
    from ltm_desktop.adapters.tunnel_processes import find_binary
    from ltm_desktop.adapters.tunnel_state import self_command, spawn_detached

    c = _container()
    control = c.tunnel_control
    current = control.status()
    if control.is_running():
        raise KnownError(f"a {current.provider} tunnel is already running (pid {current.pid}"
                         f"{', ' + current.public_url if current.public_url else ''}); `ltm tunnel stop` first")
    bundled = getattr(sys, "_MEIPASS", None)
    find_binary(args.provider, [c.settings.home / "bin"] + ([Path(bundled) / "bin"] if bundled else []))
    c.tunnel_files.clear_status()
    argv = self_command() + ["tunnel", "run", args.provider, "--token-name", args.token_name, "--no-announce"]
    pid = spawn_detached(argv, c.tunnel_files.log_file, env=dict(os.environ))
    print(f"starting the {args.provider} tunnel (pid {pid}; log: {c.tunnel_files.log_file}) ...", flush=True)
    status = control.wait_for_url(pid, args.timeout)
    if status.state != "running" or not status.public_url:
        if status.state == "starting":
            print(f"ltm: {status.message}", file=sys.stderr)
            return 1
        control.stop()
        raise KnownError(f"the {args.provider} tunnel did not come up: {status.message or status.state}")
    _announce(c, status.public_url, args.token_name, args.provider)
    print("\nThe tunnel keeps running in the background; `ltm tunnel status` shows it, `ltm tunnel stop` ends it.")
    return 0


def cmd_tunnel_run(args: argparse.Namespace) -> int:
    c = _container()
    if c.tunnel_control.is_running() and c.tunnel_control.status().pid != os.getpid():
        current = c.tunnel_control.status()
        raise KnownError(f"a {current.provider} tunnel is already running (pid {current.pid}); `ltm tunnel stop` first")
    announce = not getattr(args, "no_announce", False)

    def on_event(kind: str, text: str) -> None:
        if kind == "url" and announce:
            _announce(c, text, args.token_name, args.provider)
        elif kind == "url-changed":
            print(f"The public URL changed to {text}. Re-add the connector"
                  + (": run `ltm tunnel start` again for a fresh connector URL." if not announce else ":"), flush=True)
            if announce:
                _announce(c, text, args.token_name, args.provider)
        else:
            print(f"tunnel {kind}: {text}", flush=True)

    supervisor = c.tunnel_supervisor(args.provider, on_event)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT) + ((signal.SIGBREAK,) if hasattr(signal, "SIGBREAK") else ()):
        signal.signal(sig, lambda *_: stop.set())
    result = supervisor.run(stop)
    return 0 if result == "stopped" else 1


def cmd_tunnel_stop(args: argparse.Namespace) -> int:
    c = _container()
    before = c.tunnel_control.stop()
    if before.state in ("starting", "running", "restarting"):
        print(f"stopped the {before.provider} tunnel" + (f" ({before.public_url})" if before.public_url else ""))
    else:
        print("no tunnel is running")
    revoked = _revoke_quietly(c, args.token_name)
    if revoked:
        print(f"revoked the token {args.token_name!r}: old connector URLs no longer work")
    return 0


def _revoke_quietly(c, name: str) -> bool:
    from ltm_desktop.core.errors import NotFound

    try:
        c.tokens.revoke(name)
    except NotFound:
        return False
    return True


def cmd_tunnel_status(args: argparse.Namespace) -> int:
    import dataclasses

    status = _container().tunnel_control.status()
    if args.json:
        from ltm_desktop.cli.output import print_json

        print_json(dataclasses.asdict(status))
        return 0
    if status.state == "none":
        print("no tunnel (start one with `ltm tunnel start cloudflare|tailscale|ngrok`)")
    elif status.state == "running":
        print(f"running: {status.provider} at {status.public_url} (supervisor pid {status.pid}; "
              f"{'JSON responses' if status.json_response else 'SSE allowed'})")
    else:
        print(f"{status.state}: {status.provider}" + (f" - {status.message}" if status.message else ""))
    return 0 if status.state in ("none", "running", "stopped") else 1
