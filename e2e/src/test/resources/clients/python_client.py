"""The official Kubernetes Python client (Debian's python3-kubernetes) against a Streamplane API.

Usage: python_client.py KUBECONFIG COMMAND [ARGS]
  nodes                      print each node's name and kubelet and kube-proxy versions
  watch NAMESPACE SECONDS    print one line per pod event: TYPE NAME, until SECONDS pass
  patch NAMESPACE NAME       patch a ConfigMap with every patch type, print the data after each
  exec NAMESPACE POD LINE    run `read x; echo got $x` in the pod, write LINE to its stdin as a str,
                             print what it answered
  forward NAMESPACE POD PORT port-forward to the pod's PORT, send an HTTP GET / through it, print
                             the answer
Exits non-zero on any client error (the client raises ApiException or a decode error).
"""

import json
import sys

from kubernetes import client, config, watch
from kubernetes.stream import portforward, stream


def nodes(core, _args):
    for node in core.list_node().items:
        info = node.status.node_info
        print(node.metadata.name, info.kubelet_version, info.kube_proxy_version, flush=True)


def watch_pods(core, args):
    namespace, seconds = args[0], int(args[1])
    print("WATCHING", flush=True)
    for event in watch.Watch().stream(
        core.list_namespaced_pod, namespace, timeout_seconds=seconds
    ):
        print(event["type"], event["object"].metadata.name, flush=True)


def patch(core, args):
    """The client picks JSON patch for a list body and strategic merge patch for a dict; a merge
    patch needs the Content-Type set on the client, as its users do."""
    namespace, name = args
    patched = core.patch_namespaced_config_map(
        name, namespace, [{"op": "add", "path": "/data/json", "value": "1"}]
    )
    print("json-patch", json.dumps(patched.data, sort_keys=True), flush=True)
    patched = core.patch_namespaced_config_map(name, namespace, {"data": {"strategic": "2"}})
    print("strategic-merge-patch", json.dumps(patched.data, sort_keys=True), flush=True)
    core.api_client.set_default_header("Content-Type", "application/merge-patch+json")
    patched = core.patch_namespaced_config_map(name, namespace, {"data": {"json": None}})
    print("merge-patch", json.dumps(patched.data, sort_keys=True), flush=True)


def exec_stdin(core, args):
    namespace, pod, line = args
    resp = stream(
        core.connect_get_namespaced_pod_exec,
        pod,
        namespace,
        command=["sh", "-c", "read x; echo got $x"],
        stdin=True,
        stdout=True,
        stderr=True,
        tty=False,
        _preload_content=False,
    )
    resp.write_stdin(line + "\n")
    answer = resp.readline_stdout(timeout=30)
    resp.close()
    print(answer, flush=True)


def forward(core, args):
    namespace, pod, port = args[0], args[1], int(args[2])
    pf = portforward(core.connect_get_namespaced_pod_portforward, pod, namespace, ports=str(port))
    sock = pf.socket(port)
    sock.setblocking(True)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n")
    answer = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    sock.close()
    print(answer.decode("utf-8", "replace"), flush=True)


COMMANDS = {
    "nodes": nodes,
    "watch": watch_pods,
    "patch": patch,
    "exec": exec_stdin,
    "forward": forward,
}

if __name__ == "__main__":
    config.load_kube_config(config_file=sys.argv[1])
    COMMANDS[sys.argv[2]](client.CoreV1Api(), sys.argv[3:])
