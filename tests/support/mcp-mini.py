#!/usr/bin/env python3
# A stdio MCP server in a few lines of Python, for the rows where the server is a Python module (python -m NAME):
# one tool, whoami, which says which copy of the module answered (WHO, set where the copy is written).
import json, sys
WHO = "installed"
for line in sys.stdin:
    m = json.loads(line)
    if m.get("id") is None:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": m["params"].get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}}, "serverInfo": {"name": "mini", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "whoami", "description": "Which copy of the server answers.", "inputSchema": {"type": "object", "properties": {}}}]}
    elif method == "tools/call":
        r = {"content": [{"type": "text", "text": f"the {WHO} server answers"}]}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
