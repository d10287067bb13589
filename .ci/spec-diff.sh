#!/usr/bin/env bash
# Reviewers' spec check for CI: fails on a breaking change to spec/openapi.yaml since the
# previous commit (of a wire shape, or of x-retry-policy or x-delivery-policy for clients or
# receivers: tools/diff/behaviour-changes.ts)
# unless info.version got a new major version. Passes when there is no
# previous commit (or a shallow clone without it) or the spec did not exist there.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s spec:diff -- "${1:-HEAD~1}"
