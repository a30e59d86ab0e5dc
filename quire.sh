#!/usr/bin/env bash
# Quire's two everyday commands, safe to run on a fresh Debian 12 machine with Node 20:
#   ./quire.sh start   install what is missing, build, start the server on port 8080 (PORT overrides)
#   ./quire.sh test    install what is missing, build, lint, check the formatting, type-check, check the
#                      import rule (dependency gate) and run the whole test suite
# Also: ./quire.sh setup (install + build only), ./quire.sh bench (npm run bench),
#       ./quire.sh cluster [N] / ./quire.sh cluster stop: redis-server, N nodes and haproxy on loopback (docs/cluster.md).
# Every step is idempotent: packages already present are not reinstalled, a build that is current is kept.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages the server and its tests need (grows with the engines; see docs/ARCHITECTURE.md).
APT_PACKAGES=(
  qpdf poppler-utils unzip zip ghostscript
  # The Adobe CMaps (UCS2 and predefined CJK encodings, BSD-3) the PDF/A validator reads for glyph Unicode
  # values; a Recommends of poppler that --no-install-recommends would leave out.
  poppler-data
  # Office conversion: the three -nogui LibreOffice applications, driven over UNO by Debian's Python.
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno
  # HTML, text and e-mail rendering.
  chromium
  # Fonts: DejaVu and Liberation (Arial/Times metrics), Carlito/Caladea (Calibri/Cambria metrics), Noto CJK.
  fonts-dejavu fonts-liberation fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea fonts-noto-cjk
  # Tests only: Apache PDFBox, an independent reader of certificate-encrypted PDFs.
  openjdk-17-jre-headless libpdfbox2-java libbcprov-java libbcpkix-java libbcutil-java
  # Tests only: PDFBox preflight (PDF/A-1b), an independent check of the pdfa web service's results.
  libactivation-java libjaxb-api-java
  # Tests only: zbarimg, a barcode reader independent of the barcode service's (zxing-wasm); qrencode draws test codes.
  zbar-tools qrencode
  # Tests only: tiffinfo, an independent reader of the TIFFs the toolbox writes (compression, pages).
  libtiff-tools
  # Tests only: readers for what zbar cannot read (Aztec, DataMatrix, PDF417): Java ZXing.
  libzxing-core-java libzxing-javase-java
  # OCR web service: Tesseract 5 and the traineddata of its five languages (more: docs/ocr.md).
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-ita tesseract-ocr-spa
  # Benchmark only (bench/ocr.ts): OCRmyPDF, the comparison of the ocr web service's throughput.
  ocrmypdf
  # Cluster mode (docs/cluster.md): Redis holds the shared state and the BullMQ queue; HAProxy balances the
  # nodes that `./quire.sh cluster` and the cluster tests start on loopback.
  redis-server haproxy
)

log() { printf '\033[1m[quire]\033[0m %s\n' "$*" >&2; }

check_node() {
  if ! command -v node >/dev/null 2>&1; then
    log "Node.js 20.19 or newer is required (not found)."; exit 1
  fi
  local version; version=$(node -p 'process.versions.node')
  if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)'; then
    log "Node.js 20.19 or newer is required (found $version)."; exit 1
  fi
}

install_apt_packages() {
  [ ${#APT_PACKAGES[@]} -eq 0 ] && return 0
  local missing=()
  for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_node_modules() {
  local stamp=node_modules/.quire-lock.sha256
  local want; want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
}

build() {
  if [ -f dist/build-info.json ] && [ -z "$(find src portal package.json package-lock.json tsconfig.json tsconfig.build.json -newer dist/build-info.json -print -quit)" ]; then
    return 0
  fi
  log "building"
  npm run --silent build
}

setup() {
  check_node
  install_apt_packages
  install_node_modules
  build
}

run_tests() {
  # In this order; the first check that fails stops the run (set -e).
  log "linting (ESLint)"
  npm run --silent lint
  log "checking the formatting (Biome; 'npm run format' fixes it)"
  npm run --silent format:check
  log "type-checking sources and tests"
  npx tsc -p tsconfig.json --noEmit
  npx tsc -p portal/tsconfig.json --noEmit
  log "checking the import rule of docs/ARCHITECTURE.md (dependency-cruiser)"
  npm run --silent gate
  log "running the test suite"
  local results; results=$(mktemp)
  local status=0
  npx vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@" || status=$?
  # One closing line in the plain 'N passed, N failed' form that any CI can read.
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  ' "$results" || true
  rm -f "$results"
  return $status
}

# ./quire.sh cluster [N]: a cluster on this machine, everything on 127.0.0.1 (docs/cluster.md): redis-server
# (AOF on) on REDIS_PORT (6390, not a system Redis's 6379), N nodes (default 3) of `npm start` on
# NODE_BASE_PORT+1.. (8081..) sharing the data dir (QUIRE_DATA_DIR, ./data), haproxy on PORT (8080), round
# robin, health-checked. Pid files and logs: <dataDir>/cluster/. `./quire.sh cluster stop` ends them.
cluster() {
  local data=${QUIRE_DATA_DIR:-./data} redis_port=${REDIS_PORT:-6390} base=${NODE_BASE_PORT:-8080} lb_port=${PORT:-8080}
  local run context=${QUIRE_SERVER__CONTEXT_PATH:-/webPDF}
  run="$(mkdir -p "$data/cluster" && cd "$data/cluster" && pwd)"
  if [ "${1:-}" = stop ]; then cluster_stop "$run" "$redis_port"; return; fi
  local nodes=${1:-3}
  [[ "$nodes" =~ ^[1-9][0-9]?$ ]] || { log "usage: $0 cluster [N (1-99)] | $0 cluster stop"; exit 2; }
  if compgen -G "$run/*.pid" >/dev/null; then log "a cluster runs already from $run (./quire.sh cluster stop)"; exit 1; fi
  setup
  mkdir -p "$run/redis"
  log "redis-server on 127.0.0.1:$redis_port (AOF in $run/redis)"
  redis-server --port "$redis_port" --bind 127.0.0.1 --protected-mode yes --appendonly yes --appendfsync everysec --save "" \
    --dir "$run/redis" --daemonize yes --pidfile "$run/redis.pid" --logfile "$run/redis.log"
  until redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG; do sleep 0.1; done
  local servers="" i port
  # The nodes share this machine's cores: each counts ⌈cores / N⌉ as its own (server.cpus), so N nodes start
  # about as many LibreOffice workers as one node would, not N times as many.
  local cpus=$(( ($(nproc) + nodes - 1) / nodes ))
  for i in $(seq 1 "$nodes"); do
    port=$((base + i))
    # Each node is `npm start` in a session of its own (its pid file names the process group), configured by
    # the environment: the cluster's settings, its own id and port; everything else from the shared data dir.
    QUIRE_DATA_DIR="$data" QUIRE_SERVER__HOST=127.0.0.1 PORT="$port" QUIRE_CLUSTER__MODE=cluster \
      QUIRE_CLUSTER__REDIS__URL="redis://127.0.0.1:$redis_port" QUIRE_CLUSTER__NODE__ID="node-$i" QUIRE_SERVER__CPUS="$cpus" \
      setsid npm start --silent >"$run/node-$i.log" 2>&1 </dev/null &
    echo $! >"$run/node-$i.pid"
    servers+="  server node-$i 127.0.0.1:$port check inter 1s fall 2 rise 1"$'\n'
    # The first node alone: it creates what the others then find in the shared data dir (keys, the generated admin).
    if [ "$i" = 1 ]; then cluster_wait_healthy "$port" "$context" "$run/node-1.log"; fi
  done
  for i in $(seq 2 "$nodes"); do cluster_wait_healthy $((base + i)) "$context" "$run/node-$i.log"; done
  printf '%s\n' "global" "  log stdout format raw local0" "defaults" "  mode http" "  log global" "  option httplog" \
    "  timeout connect 5s" "  timeout client 15m" "  timeout server 15m" \
    "  retries 2" "  option redispatch" "  retry-on conn-failure" \
    "frontend quire" "  bind 127.0.0.1:$lb_port" "  default_backend nodes" \
    "backend nodes" "  balance leastconn" "  http-response set-header X-Quire-Node %s" \
    "  option httpchk GET $context/health" "  http-check expect status 200" >"$run/haproxy.cfg"
  printf '%s' "$servers" >>"$run/haproxy.cfg"
  setsid haproxy -db -f "$run/haproxy.cfg" >"$run/haproxy.log" 2>&1 </dev/null &
  echo $! >"$run/haproxy.pid"
  log "$nodes node(s) behind http://127.0.0.1:$lb_port$context (haproxy); logs and pid files in $run"
  log "a generated admin password (no users configured) is in $run/node-1.log; stop with: $0 cluster stop"
}

cluster_wait_healthy() {
  local port=$1 context=$2 logfile=$3 tries=0
  until curl -fsS -o /dev/null "http://127.0.0.1:$port$context/health" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -gt 600 ]; then log "the node on port $port is not healthy after 60 s; see $logfile"; exit 1; fi
    sleep 0.1
  done
}

cluster_stop() {
  local run=$1 redis_port=$2 file pid
  for file in "$run"/haproxy.pid "$run"/node-*.pid; do
    [ -f "$file" ] || continue
    pid=$(cat "$file")
    # The whole process group (npm and the node it started); a node finishes its in-flight requests first.
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -f "$file"
  done
  if [ -f "$run/redis.pid" ]; then
    # SHUTDOWN writes the AOF out before Redis exits.
    redis-cli -p "$redis_port" shutdown >/dev/null 2>&1 || kill -TERM "$(cat "$run/redis.pid")" 2>/dev/null || true
    rm -f "$run/redis.pid"
  fi
  log "cluster stopped"
}

command=${1:-}
shift || true
case "$command" in
  start) setup; exec npm start --silent ;;
  test) setup; run_tests "$@" ;;
  setup) setup ;;
  bench) setup; exec npm run --silent bench -- "$@" ;;
  cluster) cluster "$@" ;;
  *) echo "usage: $0 start|test|setup|bench|cluster [N|stop]" >&2; exit 2 ;;
esac
