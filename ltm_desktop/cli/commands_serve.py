"""serve and token: the MCP server (stdio or HTTP) and the bearer tokens its HTTP side accepts."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the MCP server (stdio for one client, or HTTP for several)")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="speak MCP on stdin/stdout (what Claude Desktop launches)")
    mode.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp, bearer tokens required")
    p.add_argument("--host", default=None, help="address to bind (default: the http_host setting, 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: the http_port setting, 8322)")
    p.add_argument("--json-response", action="store_true",
                   help="answer with plain JSON instead of SSE streams (for tunnels that cannot carry SSE)")
    p.set_defaults(handler=cmd_serve)

    tokens = sub.add_parser("token", help="bearer tokens for the HTTP server, one per client").add_subparsers(
        dest="token_command", metavar="ACTION"
    )
    p = tokens.add_parser("create", help="create a token for a client and print it once")
    p.add_argument("name", help="the client's name, e.g. claude-code (letters, digits, '.', '_', '-')")
    p.add_argument("--replace", action="store_true", help="revoke the client's current token first")
    p.set_defaults(handler=cmd_token_create)
    p = tokens.add_parser("list", help="show each client's token: name, created, last used")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_token_list)
    p = tokens.add_parser("revoke", help="revoke a client's token (its requests get 401 at once)")
    p.add_argument("name")
    p.set_defaults(handler=cmd_token_revoke)


def _container():
    from ltm_desktop.bootstrap import Container

    return Container()


def cmd_serve(args: argparse.Namespace) -> int:
    from ltm_desktop.mcp.runner import serve_http, serve_stdio
    from ltm_desktop.mcp.server_logging import configure_server_logging

    c = _container()
    configure_server_logging(c.settings.log_dir, "mcp-stdio" if args.stdio else "mcp-http", args.verbose)
    try:
        if args.stdio:
            return serve_stdio(c)
        port = c.settings.http_port if args.port is None else args.port
        if not 0 <= port <= 65535:
            print(f"ltm: --port must be between 0 and 65535 (got {port})", file=sys.stderr)
            return 2
        return serve_http(c, args.host or c.settings.http_host, port, json_response=args.json_response)
    finally:
        c.close()


def cmd_token_create(args: argparse.Namespace) -> int:
    c = _container()
    record, token = c.tokens.create(args.name, replace=args.replace)
    s = c.settings
    # The token alone on stdout (TOKEN=$(ltm token create x) works); how to use it on stderr.
    print(token)
    print(
        f"ltm: token for {record.name!r} created; it is shown only this once.\n"
        f"  header:   Authorization: Bearer <token>  ->  http://{s.http_host}:{s.http_port}/mcp\n"
        f"  in a URL: http://{s.http_host}:{s.http_port}/t/<token>/mcp  (for apps without a header field)",
        file=sys.stderr,
    )
    c.close()
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    from ltm_desktop.cli.output import print_json

    c = _container()
    tokens = c.tokens.list()
    c.close()
    if args.json:
        print_json([{"name": t.name, "created": t.created_at, "last_used": t.last_used_at} for t in tokens])
        return 0
    if not tokens:
        print("no tokens: create one with `ltm token create NAME`")
        return 0
    width = max(len(t.name) for t in tokens)
    print(f"{'NAME':<{width}}  {'CREATED':<20}  LAST USED")
    for t in tokens:
        print(f"{t.name:<{width}}  {t.created_at:<20}  {t.last_used_at or 'never'}")
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    c = _container()
    c.tokens.revoke(args.name)
    c.close()
    print(f"revoked the token of {args.name!r}")
    return 0


def recent_activity(container, hours: int = 24, last: int = 5) -> dict:
    """MCP tool calls of the last hours per tool and client, and the last few calls (for `ltm stats`)."""
    from ltm_desktop.core.errors import KnownError

    try:
        summary = container.journal.summary(hours)
        calls = container.journal.recent(last)
    except KnownError as e:
        return {"hours": hours, "error": str(e)}
    return {
        "hours": hours,
        "by_tool_and_client": [{"tool": t, "client": c, "calls": n, "errors": e} for t, c, n, e in summary],
        "last_calls": [{"at": x.at, "tool": x.tool, "client": x.client, "ok": x.ok, "ms": x.duration_ms} for x in calls],
    }


def activity_lines(activity: dict) -> list[str]:
    """The activity block of `ltm stats`, as lines a person reads."""
    if "error" in activity:
        return [f"AI tool calls: unavailable ({activity['error']})"]
    rows = activity["by_tool_and_client"]
    total = sum(r["calls"] for r in rows)
    lines = [f"AI tool calls in the last {activity['hours']}h: {total}"]
    lines += [f"  {r['client']}: {r['tool']} x{r['calls']}" + (f" ({r['errors']} failed)" if r["errors"] else "")
              for r in rows[:10]]
    for x in activity["last_calls"]:
        lines.append(f"  last: {x['at']} {x['client']} {x['tool']} {'ok' if x['ok'] else 'error'} {x['ms']:.0f} ms")
    return lines
