#!/usr/bin/env bash
# Quire's two everyday commands, safe to run on a fresh Debian 12 machine with Node 20:
#   ./quire.sh start   install what is missing, build, start the server on port 8080 (PORT overrides)
#   ./quire.sh test    install what is missing, build, lint, check the formatting, type-check, check the
#                      import rule (dependency gate) and run the whole test suite
# Also: ./quire.sh setup (install + build only), ./quire.sh bench (npm run bench).
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

command=${1:-}
shift || true
case "$command" in
  start) setup; exec npm start --silent ;;
  test) setup; run_tests "$@" ;;
  setup) setup ;;
  bench) setup; exec npm run --silent bench -- "$@" ;;
  *) echo "usage: $0 start|test|setup|bench" >&2; exit 2 ;;
esac
