#!/usr/bin/env bash
# The Updraft publish action's logic (action.yml runs it; docs/ci.md). Reads the inputs as INPUT_* variables
# (underscores for hyphens), GitHub's GITHUB_* variables, writes group-id, branch, runtime-version and link
# to $GITHUB_OUTPUT and a summary to $GITHUB_STEP_SUMMARY. Needs java (17+) and jq (both on GitHub's
# hosted runners; setup-java in action.yml). The token goes to the CLI as UPDRAFT_TOKEN, never on a
# command line. Exit status: the CLI's (0 ok, 1 refused or failed, 2 bad input).
set -euo pipefail

fail() { echo "::error title=updraft publish::$1" >&2; exit "${2:-2}"; }

server=${INPUT_SERVER:-}; token=${INPUT_TOKEN:-}; app=${INPUT_APP:-}
[[ -n "$server" ]] || fail "input server is required (the control plane's URL)"
[[ -n "$token" ]] || fail "input token is required (a publish token for the app, from a secret)"
[[ -n "$app" ]] || fail "input app is required"
command -v jq >/dev/null 2>&1 || fail "jq is not installed (GitHub's hosted runners have it; apt-get install jq)"

# the branch: given, or pr-<number> on a pull request (GITHUB_REF is refs/pull/<number>/merge there)
branch=${INPUT_BRANCH:-}
pr=""
if [[ "${GITHUB_REF:-}" =~ ^refs/pull/([0-9]+)/ ]]; then
  pr=${BASH_REMATCH[1]}
fi
if [[ -z "$branch" ]]; then
  [[ -n "$pr" ]] || fail "input branch is required outside a pull request (GITHUB_REF=${GITHUB_REF:-unset})"
  branch="pr-$pr"
fi

# the CLI: a launcher jar built before (with its lib/ folder beside it, as the launcher module's package phase
# leaves them in launcher/target) or one built now from this action's own checkout of Updraft (its ref)
jar=${INPUT_CLI_JAR:-}
if [[ -z "$jar" ]]; then
  root=$(cd "$(dirname "$0")/../../.." && pwd)
  [[ -x "$root/mvnw" ]] || fail "no cli-jar given and no Updraft checkout at $root to build one from"
  echo "updraft: building the CLI from $root" >&2
  "$root/mvnw" -q -B -DskipTests -pl launcher -am package >&2
  jar="$root/launcher/target/updraft.jar"
fi
[[ -f "$jar" ]] || fail "the CLI jar $jar does not exist"
[[ -d "$(dirname "$jar")/lib" ]] || fail "the CLI jar $jar has no lib/ folder beside it (the launcher's package phase makes both)"
java_cmd="${JAVA_HOME:+$JAVA_HOME/bin/}java"
export UPDRAFT_SERVER="$server" UPDRAFT_TOKEN="$token"
updraft() { "$java_cmd" -cp "$jar:$(dirname "$jar")/lib/*" dev.updraft.launcher.Updraft "$@"; }

console=${INPUT_CONSOLE_URL:-${server%/}/console/}
console=${console%/}/
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

if [[ "${INPUT_DELETE_BRANCH:-false}" == "true" ]]; then
  if updraft branches delete --app "$app" --branch "$branch" --json >"$out" 2>"$err"; then
    groups=$(jq -r '.groupIds | length' "$out")
    said="deleted branch $branch ($groups groups)"
  elif grep -q 'branch-not-found' "$err"; then
    said="branch $branch did not exist: nothing to delete"
  else
    cat "$err" >&2; exit 1
  fi
  echo "$said"
  { echo "group-id="; echo "branch=$branch"; echo "runtime-version="; echo "link="; } >>"${GITHUB_OUTPUT:-/dev/null}"
  [[ -z "${GITHUB_STEP_SUMMARY:-}" ]] || echo "### Updraft: $said (app \`$app\`)" >>"$GITHUB_STEP_SUMMARY"
  exit 0
fi

message=${INPUT_MESSAGE:-}
if [[ -z "$message" ]]; then
  if [[ -n "$pr" && -n "${PR_TITLE:-}" ]]; then
    message="PR #$pr: $PR_TITLE"
  else
    message="${GITHUB_REPOSITORY:-local}@${GITHUB_SHA:0:12}"
  fi
fi
args=(publish --app "$app" --branch "$branch" --dist "${INPUT_DIST:-dist}" --message "$message" --no-progress --json)
[[ -z "${GITHUB_SHA:-}" ]] || args+=(--git-commit "$GITHUB_SHA")
[[ -z "${INPUT_RUNTIME_VERSION:-}" ]] || args+=(--runtime-version "$INPUT_RUNTIME_VERSION")
[[ -z "${INPUT_PLATFORM:-}" ]] || args+=(--platform "$INPUT_PLATFORM")
[[ -z "${INPUT_PROJECT_DIR:-}" ]] || args+=(--project-dir "$INPUT_PROJECT_DIR")
# a re-run of the same job attempt retries the same publish instead of publishing twice
[[ -z "${GITHUB_RUN_ID:-}" ]] || args+=(--idempotency-key "github-${GITHUB_REPOSITORY:-}-${GITHUB_RUN_ID}-${GITHUB_RUN_ATTEMPT:-1}-$app-$branch")

status=0
updraft "${args[@]}" >"$out" 2>"$err" || status=$?
if [[ $status -ne 0 ]]; then
  cat "$err" >&2
  fail "publish to branch $branch failed: $(tail -n 1 "$err")" "$status"
fi
cat "$err" >&2 # warnings (an orphan runtime version, say)
# one group, or an array of them when the platforms resolved to different runtime versions (a fingerprint)
jq -c 'if type == "array" then .[] else . end' "$out" >"$out.groups"
group=$(jq -r '.groupId' "$out.groups" | paste -sd, -)
runtime=$(jq -r '.runtimeVersion' "$out.groups" | paste -sd, -)
app_uri=$(jq -rn --arg a "$app" '$a|@uri')
link=$(jq -r '.groupId' "$out.groups" | sed "s|^|${console}#/apps/$app_uri/updates/|" | paste -sd' ' -)
echo "published group $group on branch $branch, runtime $runtime"
echo "$link"
{
  echo "group-id=$group"
  echo "branch=$branch"
  echo "runtime-version=$runtime"
  echo "link=$link"
} >>"${GITHUB_OUTPUT:-/dev/null}"
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  {
    echo "### Updraft: published to branch \`$branch\` of \`$app\`"
    echo
    echo "| group | runtime version | platform | update |"
    echo "|---|---|---|---|"
    jq -r --arg c "${console}#/apps/$app_uri/updates/" '.groupId as $g | .runtimeVersion as $r | .platforms[] | "| [`\($g)`](\($c)\($g)) | \($r) | \(.platform) | `\(.updateId)` |"' "$out.groups"
    if [[ -n "$pr" ]]; then
      echo
      echo "Open it in a release build: \`Updates.setExtraParamAsync('updraft-channel', '$branch')\`, then reload."
    fi
  } >>"$GITHUB_STEP_SUMMARY"
fi
rm -f "$out.groups"
