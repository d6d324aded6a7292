#!/usr/bin/env python3
"""An ACP client on the official Python SDK (`agent-client-protocol`) that
runs `zcode acp` as its agent, answers its forms and permission requests
from a script, and prints what it saw as one JSON object on stdout.

    client.py --zcode PATH --script SCRIPT.json [--timeout SECONDS]

The zcode binary may also come from $ZCODE_BIN. The script is JSON:

    {
      "cwd": "/the/project",              # session/new's cwd (default: ours)
      "load": "sess_…",                   # session/load this one instead of session/new
      "forms": true,                      # advertise elicitation.form
      "mode": "plan",                     # session/set_mode before prompting
      "config": {"auto_continue": "off"}, # session/set_config_option before prompting
      "prompts": ["do the thing"],        # one session/prompt each, in order
      "elicitations": [                   # answers to elicitation/create, in order
        {"action": "accept", "content": {"q1": "Rust"}},
        {"action": "decline"},
        {"action": "cancel"},
        {"action": "hold"}                # no answer while the turn runs
      ],
      "permissions": ["allow_once", "deny", {"outcome": "cancelled"}],
      "log": "/tmp/messages.jsonl"        # every JSON-RPC message, both ways
    }

A request the script has no answer left for is cancelled and counted in
`unscripted`. A held form is answered (cancel) only once zcode withdraws it
with `$/cancel_request` or the turn has ended; its `withdrawn` says which
came first. Every message zcode sent is also checked against the SDK's
pydantic schema: a message it rejects, a field it drops or a value it
replaces on reading (the SDK salvages some malformed fields silently), or a
form it can only read as an unknown variant, is listed in `schema_problems`.
The summary names what the SDK read, not what zcode meant: that is the
point of using an implementation zcode did not write.

Exit status: 0 when the script ran to its end (the summary says how), 1 on
an error of the run (the summary's `error` says which), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from acp import PROTOCOL_VERSION, RequestError, text_block
from acp import schema as s
from acp.connection import StreamEvent
from acp.stdio import spawn_agent_process

# What each message zcode may send is read as, by the SDK's own models.
INCOMING = {
    "session/update": TypeAdapter(s.SessionNotification),
    "session/request_permission": TypeAdapter(s.RequestPermissionRequest),
    "elicitation/create": TypeAdapter(s.CreateElicitationRequest),
    "elicitation/complete": TypeAdapter(s.CompleteElicitationNotification),
    "fs/read_text_file": TypeAdapter(s.ReadTextFileRequest),
    "fs/write_text_file": TypeAdapter(s.WriteTextFileRequest),
    "$/cancel_request": TypeAdapter(s.CancelRequestNotification),
}
RESPONSES = {
    "initialize": TypeAdapter(s.InitializeResponse),
    "session/new": TypeAdapter(s.NewSessionResponse),
    "session/load": TypeAdapter(s.LoadSessionResponse),
    "session/set_mode": TypeAdapter(s.SetSessionModeResponse),
    "session/set_config_option": TypeAdapter(s.SetSessionConfigOptionResponse),
    "session/prompt": TypeAdapter(s.PromptResponse),
}
# The SDK's catch-alls for variants it does not know: a message of zcode's
# read as one of these was not understood, even though it parsed.
UNKNOWN_VARIANTS = (
    s.CreateOtherElicitationRequest,
    s.ElicitationOtherPropertySchema,
    s.OtherMultiSelectItems,
)


def dump(value: Any) -> Any:
    """A parsed model as JSON again, with the wire's names."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


def differences(sent: Any, read: Any, path: str = "") -> list[dict[str, Any]]:
    """Where `read` (the SDK's reading, dumped again) lost or changed what
    was `sent`. A null sent for an absent field is the same thing."""
    if isinstance(sent, dict) and isinstance(read, dict):
        out: list[dict[str, Any]] = []
        for key, value in sent.items():
            if key not in read:
                if value is not None:
                    out.append({"problem": "dropped", "path": f"{path}/{key}", "sent": value})
            else:
                out.extend(differences(value, read[key], f"{path}/{key}"))
        return out
    if isinstance(sent, list) and isinstance(read, list) and len(sent) == len(read):
        out = []
        for i, (a, b) in enumerate(zip(sent, read)):
            out.extend(differences(a, b, f"{path}/{i}"))
        return out
    same_number = (
        isinstance(sent, (int, float))
        and isinstance(read, (int, float))
        and not isinstance(sent, bool)
        and not isinstance(read, bool)
        and sent == read
    )
    if sent == read or same_number:
        return []
    return [{"problem": "changed", "path": path or "/", "sent": sent, "read": read}]


def unknown_variants(value: Any, path: str = "") -> list[str]:
    """Paths where the SDK fell back on a catch-all model."""
    found: list[str] = []
    if isinstance(value, UNKNOWN_VARIANTS):
        found.append(f"{path or '/'}: {type(value).__name__}")
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            found.extend(unknown_variants(getattr(value, name), f"{path}/{name}"))
    elif isinstance(value, dict):
        for key, item in value.items():
            found.extend(unknown_variants(item, f"{path}/{key}"))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found.extend(unknown_variants(item, f"{path}/{i}"))
    return found


def check(adapter: TypeAdapter, method: str, payload: Any) -> list[dict[str, Any]]:
    """The schema problems of one payload zcode sent."""
    try:
        parsed = adapter.validate_python(payload)
    except ValidationError as e:
        errors = e.errors(include_url=False, include_context=False, include_input=False)
        return [{"method": method, "problem": "rejected", "detail": errors[:8]}]
    read = adapter.dump_python(parsed, mode="json", by_alias=True, exclude_unset=True)
    problems = [{"method": method, **d} for d in differences(payload, read)]
    problems.extend(
        {"method": method, "problem": "unknown variant", "path": p} for p in unknown_variants(parsed)
    )
    return problems


def schema_problems(log: list[StreamEvent]) -> list[dict[str, Any]]:
    """Checks every message zcode sent: its requests and notifications, and
    its responses to ours (matched by id)."""
    asked: dict[Any, str] = {}
    for event in log:
        message = event.message
        if event.direction.value == "outgoing" and "method" in message and "id" in message:
            asked[message["id"]] = message["method"]
    problems: list[dict[str, Any]] = []
    for event in log:
        message = event.message
        if event.direction.value != "incoming":
            continue
        method = message.get("method")
        if method is not None:
            adapter = INCOMING.get(method)
            if adapter is None:
                problems.append({"method": method, "problem": "unknown method"})
            else:
                problems.extend(check(adapter, method, message.get("params")))
        elif "result" in message:
            answered = asked.get(message.get("id"))
            adapter = RESPONSES.get(answered or "")
            if adapter is not None:
                problems.extend(check(adapter, f"{answered} (result)", message["result"]))
    return problems


class ScriptedClient:
    """The client side: answers from the script, records what it read."""

    def __init__(self, script: dict[str, Any]) -> None:
        self.elicitation_answers = list(script.get("elicitations", []))
        self.permission_answers = list(script.get("permissions", []))
        self.updates: list[dict[str, Any]] = []
        self.elicitations: list[dict[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []
        self.unscripted = 0
        self.log: list[StreamEvent] = []
        self.form_ids: list[Any] = []
        self.withdrawn: dict[Any, asyncio.Event] = {}
        self.turn_over = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append({"sessionId": session_id, **dump(update)})

    async def request_permission(
        self, session_id: str, tool_call: s.ToolCallUpdate, options: list[s.PermissionOption], **kwargs: Any
    ) -> s.RequestPermissionResponse:
        if self.permission_answers:
            answer = self.permission_answers.pop(0)
        else:
            self.unscripted += 1
            answer = {"outcome": "cancelled"}
        if isinstance(answer, str):
            outcome: Any = s.AllowedOutcome(option_id=answer, outcome="selected")
        else:
            outcome = s.DeniedOutcome(outcome="cancelled")
        self.permissions.append(
            {
                "sessionId": session_id,
                "toolCall": dump(tool_call),
                "options": [dump(o) for o in options],
                "answer": answer,
            }
        )
        return s.RequestPermissionResponse(outcome=outcome)

    def observe(self, event: StreamEvent) -> None:
        """Sees every message first: keeps it, and notes the ids of forms
        and of the requests zcode withdraws, which the SDK does not pass on."""
        self.log.append(event)
        message = event.message
        if event.direction.value != "incoming":
            return
        if message.get("method") == "elicitation/create":
            self.form_ids.append(message.get("id"))
        elif message.get("method") == "$/cancel_request":
            params = message.get("params") or {}
            self.withdrawn.setdefault(params.get("requestId"), asyncio.Event()).set()

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        request_id = self.form_ids.pop(0) if self.form_ids else None
        if self.elicitation_answers:
            answer = self.elicitation_answers.pop(0)
        else:
            self.unscripted += 1
            answer = {"action": "cancel"}
        self.elicitations.append(
            {"message": message, "mode": type(mode).__name__, **dump(mode), "answer": answer}
        )
        action = answer.get("action")
        if action == "hold":
            entry = self.elicitations[-1]
            entry["withdrawn"] = None
            withdrawn = self.withdrawn.setdefault(request_id, asyncio.Event())
            turn_over = asyncio.ensure_future(self.turn_over.wait())
            cancelled = asyncio.ensure_future(withdrawn.wait())
            await asyncio.wait({turn_over, cancelled}, return_when=asyncio.FIRST_COMPLETED)
            entry["withdrawn"] = withdrawn.is_set()
            turn_over.cancel()
            cancelled.cancel()
            return s.CancelElicitationResponse(action="cancel")
        if action == "accept":
            return s.AcceptElicitationResponse(action="accept", content=answer.get("content"))
        if action == "decline":
            return s.DeclineElicitationResponse(action="decline")
        return s.CancelElicitationResponse(action="cancel")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None


def error_of(e: BaseException) -> dict[str, Any]:
    if isinstance(e, RequestError):
        return {"code": e.code, "message": str(e), "data": e.data}
    return {"type": type(e).__name__, "message": str(e)}


async def run(zcode: str, script: dict[str, Any], summary: dict[str, Any]) -> None:
    client = ScriptedClient(script)
    log = client.log
    summary["stop_reasons"] = []
    cwd = script.get("cwd") or os.getcwd()
    capabilities = s.ClientCapabilities(
        fs=s.FileSystemCapabilities(read_text_file=False, write_text_file=False),
        terminal=False,
        elicitation=s.ElicitationCapabilities(form=s.ElicitationFormCapabilities()) if script.get("forms") else None,
    )
    try:
        async with spawn_agent_process(
            client,
            zcode,
            "acp",
            env=dict(os.environ),
            cwd=cwd,
            # zcode's stderr goes where ours does, so nothing blocks on it;
            # after stdin closes it saves the session and exits, which a
            # busy machine may take more than the SDK's default 2 s for.
            transport_kwargs={"stderr": None, "shutdown_timeout": 20.0},
            use_unstable_protocol=True,
            observers=[client.observe],
        ) as (conn, process):
            init = await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=capabilities,
                client_info=s.Implementation(name="zcode-python-check", version="1"),
            )
            summary["agent"] = dump(init)
            if script.get("load"):
                session_id = script["load"]
                await conn.load_session(cwd=cwd, session_id=session_id, mcp_servers=[])
            else:
                session_id = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
            summary["session_id"] = session_id
            summary["config_options"] = []
            for config_id, value in (script.get("config") or {}).items():
                answer = await conn.set_config_option(config_id=config_id, session_id=session_id, value=value)
                summary["config_options"] = dump(answer).get("configOptions", [])
            if script.get("mode"):
                await conn.set_session_mode(session_id=session_id, mode_id=script["mode"])
            for prompt in script.get("prompts", []):
                response = await conn.prompt(session_id=session_id, prompt=[text_block(prompt)])
                summary["stop_reasons"].append(response.stop_reason)
                # A form held through the turn may be answered now.
                client.turn_over.set()
                client.turn_over.clear()
        summary["exit_code"] = process.returncode
    finally:
        summary["updates"] = client.updates
        summary["elicitations"] = client.elicitations
        summary["permissions"] = client.permissions
        summary["unscripted"] = client.unscripted
        summary["schema_problems"] = schema_problems(log)
        if script.get("log"):
            with open(script["log"], "w", encoding="utf-8") as f:
                for event in log:
                    f.write(json.dumps({"direction": event.direction.value, **event.message}) + "\n")
        summary["client_errors"] = [
            e.message["error"]
            for e in log
            if e.direction.value == "outgoing" and "error" in e.message
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--zcode", default=os.environ.get("ZCODE_BIN"), help="the zcode binary")
    parser.add_argument("--script", required=True, help="the JSON script")
    parser.add_argument("--timeout", type=float, default=60.0, help="bound of the whole run, seconds")
    args = parser.parse_args()
    if not args.zcode:
        parser.error("--zcode or $ZCODE_BIN is needed")
    with open(args.script, encoding="utf-8") as f:
        script = json.load(f)
    summary: dict[str, Any] = {}
    status = 0
    try:
        asyncio.run(asyncio.wait_for(run(args.zcode, script, summary), args.timeout))
    except asyncio.TimeoutError:
        summary["error"] = {"type": "timeout", "message": f"the run took over {args.timeout} s"}
        status = 1
    except Exception as e:  # noqa: BLE001 - every failure goes into the summary
        summary["error"] = error_of(e)
        status = 1
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
