"""What `ltm connect` prints: one clear line per outcome, the fix when something failed, JSON on request."""

from __future__ import annotations

import sys

from ltm_desktop.cli.output import print_json
from ltm_desktop.services.client_endpoints import Verified, VerifyFailed, VerifyOutcome
from ltm_desktop.services.client_registration import ClientStatus, Connected, NotConnected, Removed, Snippet


def _verify_json(outcome: VerifyOutcome | None) -> dict | None:
    if outcome is None:
        return None
    if isinstance(outcome, Verified):
        return {"ok": True, "tools": list(outcome.tools), "stats": outcome.stats, "seconds": outcome.seconds}
    return {"ok": False, "problem": outcome.problem, "fix": outcome.fix}


def _print_verify(outcome: VerifyOutcome | None) -> bool:
    if outcome is None:
        print("not checked (--no-verify)")
        return True
    if isinstance(outcome, Verified):
        print(f"checked: a real MCP session listed {len(outcome.tools)} tools and ran ltm_stats in "
              f"{outcome.seconds:.1f} s ({outcome.stats})")
        return True
    print(f"CHECK FAILED: {outcome.problem}", file=sys.stderr)
    print(f"fix: {outcome.fix}", file=sys.stderr)
    return False


def print_statuses(statuses: list[ClientStatus], as_json: bool) -> int:
    if as_json:
        print_json([{"client": s.client_id, "name": s.display_name, "installed": s.installed, "config": str(s.path),
                     "connected": s.transport, "detail": s.detail} for s in statuses])
        return 0
    for s in statuses:
        state = {None: "not connected", "unreadable": "config unreadable"}.get(s.transport, f"connected ({s.transport})")
        installed = "installed" if s.installed else "not installed"
        print(f"{s.client_id:15} {installed:14} {state:20} {s.path}")
        if s.transport == "unreadable" or (s.transport and "not this installation" in s.detail):
            print(f"{'':15} {s.detail}")
    return 0


def print_connected(outcome: Connected | NotConnected, as_json: bool) -> int:
    if isinstance(outcome, NotConnected):
        if as_json:
            print_json({"client": outcome.client_id, "connected": False, "reason": outcome.reason})
            return 1
        print(f"ltm: not connected: {outcome.reason}", file=sys.stderr)
        return 1
    ok = outcome.verify is None or isinstance(outcome.verify, Verified)
    if as_json:
        print_json({"client": outcome.client_id, "connected": True, "transport": outcome.transport,
                    "config": str(outcome.path), "changed": outcome.changed,
                    "backup": str(outcome.backup) if outcome.backup else None,
                    "verify": _verify_json(outcome.verify), "restart": outcome.restart_hint})
        return 0 if ok else 1
    what = "wrote" if outcome.changed else "already up to date:"
    print(f"{outcome.display_name} ({outcome.transport}): {what} {outcome.path}")
    if outcome.backup:
        print(f"backup of the previous file: {outcome.backup}")
    ok = _print_verify(outcome.verify)
    print(f"next: {outcome.restart_hint}")
    return 0 if ok else 1


def print_snippet(target, snippet: Snippet, transport: str, as_json: bool) -> int:
    if as_json:
        print_json({"client": snippet.client_id, "config": str(snippet.path), "format": snippet.format_name,
                    "entry": snippet.entry, "text": snippet.text, "deeplink": snippet.deeplink})
        return 0
    print(f"# {target.display_name}: merge this into {snippet.path} ({snippet.format_name})")
    print(snippet.text)
    if snippet.deeplink:
        print(f"\n# or open this link to install it in one click:\n{snippet.deeplink}")
    if transport == "http":
        print(f"\n# the token in this entry belongs to the client {snippet.client_id!r}; "
              f"`ltm token revoke {snippet.client_id}` disables it", file=sys.stderr)
    return 0


def print_removed(target, outcome: Removed | NotConnected, as_json: bool) -> int:
    if isinstance(outcome, NotConnected):
        print(f"ltm: {outcome.reason}", file=sys.stderr)
        return 1
    if as_json:
        print_json({"client": outcome.client_id, "removed": outcome.changed, "config": str(outcome.path),
                    "backup": str(outcome.backup) if outcome.backup else None, "token_revoked": outcome.token_revoked})
        return 0
    if outcome.changed:
        print(f"{target.display_name}: removed ltm-desktop from {outcome.path} (backup: {outcome.backup})")
        print(f"next: {target.restart_hint}")
    else:
        print(f"{target.display_name}: ltm-desktop was not in {outcome.path}; nothing changed")
    if outcome.token_revoked:
        print(f"revoked the token {outcome.client_id!r}")
    return 0


def print_check(target, outcome: VerifyOutcome, as_json: bool) -> int:
    if as_json:
        print_json({"client": target.client_id, "verify": _verify_json(outcome)})
    else:
        print(f"{target.display_name}: ", end="")
        _print_verify(outcome)
    return 0 if isinstance(outcome, Verified) else 1


def print_bundle(path, outcome: VerifyOutcome | None) -> int:
    print(f"wrote {path}")
    ok = _print_verify(outcome)
    print("next: double-click the file (or drag it onto Claude Desktop → Settings → Extensions) and press Install.")
    return 0 if ok else 1


__all__ = ["VerifyFailed", "print_bundle", "print_check", "print_connected", "print_removed", "print_snippet",
           "print_statuses"]
