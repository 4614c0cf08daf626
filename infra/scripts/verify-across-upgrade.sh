#!/usr/bin/env bash
# Checks that replay --verify stays exact on a log whose first half an earlier build wrote:
# runs `up` from OLD (a checkout of the earlier build), writes, stops it; runs `up` from NEW on the
# same data, writes more, then `replay --verify`. Usage: verify-across-upgrade.sh OLD NEW
# (ports 16443 and 29092, data in /tmp/sp-upgrade).
set -u
OLD="$(cd "${1:?usage: verify-across-upgrade.sh OLD NEW}" && pwd)"; NEW="$(cd "${2:?usage: verify-across-upgrade.sh OLD NEW}" && pwd)"
rm -rf /tmp/sp-upgrade; mkdir -p /tmp/sp-upgrade
F="--runtime simulated --nodes 2 --api-port 16443 --kafka-port 29092 --data-dir /tmp/sp-upgrade/data --state-dir /tmp/sp-upgrade/state --pki-dir /tmp/sp-upgrade/pki --kubeconfig /tmp/sp-upgrade/kubeconfig --root-dir /tmp/sp-upgrade/nodes"
export KUBECONFIG=/tmp/sp-upgrade/kubeconfig
start() { (cd $1 && setsid ./streamplane up $F > $2 2>&1 &); for i in $(seq 1 150); do grep -q "ready\. " $2 && return; sleep 2; done; echo "no ready in $2"; exit 1; }
stop() { pkill -TERM -f "api-port 16443"; for i in $(seq 1 60); do pgrep -f "api-port 16443" >/dev/null || return; sleep 1; done; }
start "$OLD" /tmp/sp-upgrade/old.log; sleep 5
kubectl apply -f $NEW/examples/nginx-deployment.yaml
for i in 1 2 3 4 5; do kubectl create configmap old-$i --from-literal=k=v$i --from-literal=a=b >/dev/null; done
kubectl create ns team-a
kubectl rollout status deploy/nginx-deployment --timeout=90s
stop
start "$NEW" /tmp/sp-upgrade/new.log; sleep 5
kubectl get cm old-3 -o jsonpath='{.data.k}{"\n"}'
for i in 1 2 3 4 5; do kubectl create configmap new-$i --from-literal=k=v$i >/dev/null; done
kubectl label cm old-1 touched=yes
kubectl scale deploy nginx-deployment --replicas=4
kubectl rollout status deploy/nginx-deployment --timeout=90s
kubectl delete cm old-2
sleep 5
cd "$NEW" && ./streamplane replay --verify --bootstrap-server 127.0.0.1:29092 2>&1 | tail -12
verified=${PIPESTATUS[0]}
stop
exit "$verified"
