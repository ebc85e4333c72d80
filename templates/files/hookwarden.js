// hookwarden opencode plugin (rendered; do not edit by hand).
//
// opencode 1.18.33 loads every .js file in .opencode/plugins/ with no trust
// step and treats every exported async function as a plugin; a throw from
// "tool.execute.before" blocks the tool and the thrown message goes to the
// model (../shared/e2e/README.md section 4). This file imports node: built-ins
// only: importing @opencode-ai/plugin makes opencode npm-install it per config
// folder, which stalls offline (same section).
//
// For the shell tool (input.tool === "bash", command at output.args.command)
// it calls the skew-guard launcher, `python3 .hookwarden/hook.py opencode
// pre-tool`, with JSON.stringify({input, output}) on stdin when a hookwarden
// engine is installed (HOOKWARDEN_BIN, the repository's bin/hookwarden, or
// hookwarden on PATH); otherwise, or when python3 cannot be started, it
// applies hookwarden's built-in text rules, rendered below from the policy
// package, and blocks by throwing the engine's refusal text.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const DATA = __HOOKWARDEN_DATA__;

const RULES = DATA.rules.map((r) => ({ id: r.id, re: new RegExp(r.pattern), requires: r.requires }));
const NORMALISE = DATA.normalise.map((n) => ({ re: new RegExp(n.pattern, "g"), replacement: n.replacement }));
const utf8Bytes = (s) => Buffer.byteLength(s, "utf8");
const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

// judgeText returns {allowed, rule} for one command text: an empty command
// allows, the scan bounds deny, then the first text rule (priority order)
// matching a line of the normalised command denies.
function judgeText(command) {
  let start = 0;
  let end = command.length;
  while (start < end && DATA.ascii_space.includes(command[start])) start++;
  while (end > start && DATA.ascii_space.includes(command[end - 1])) end--;
  if (start === end) return { allowed: true, rule: "" };
  if (utf8Bytes(command) > DATA.max_command_bytes) return { allowed: false, rule: DATA.bound_command_rule };
  for (const line of command.split("\n")) {
    if (utf8Bytes(line) > DATA.max_line_bytes) return { allowed: false, rule: DATA.bound_line_rule };
  }
  let text = command;
  for (const n of NORMALISE) text = text.replace(n.re, () => n.replacement);
  const lines = text.split("\n");
  const lower = lines.map(asciiLower);
  for (const r of RULES) {
    for (let k = 0; k < lines.length; k++) {
      if (r.requires.length > 0 && !r.requires.some((lit) => lower[k].includes(lit))) continue;
      if (r.re.test(lines[k])) return { allowed: false, rule: r.id };
    }
  }
  return { allowed: true, rule: "" };
}

// refusal returns the engine's refusal text for a built-in rule id.
function refusal(rule) {
  return DATA.reasons[rule];
}

function engineInstalled(root) {
  if (process.env.HOOKWARDEN_BIN) return true;
  const exe = process.platform === "win32" ? ["hookwarden.exe", "hookwarden"] : ["hookwarden"];
  if (exe.some((e) => fs.existsSync(path.join(root, "bin", e)))) return true;
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (dir && exe.some((e) => fs.existsSync(path.join(dir, e)))) return true;
  }
  return false;
}

// runLauncher resolves {code, stderr} of the launcher, or {spawnError} when
// python3 could not be started. It ends the launcher at the row's deadline.
function runLauncher(root, stdin) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(DATA.python, [path.join(root, ".hookwarden", "hook.py"), "opencode", "pre-tool"], {
        cwd: root,
        stdio: ["pipe", "ignore", "pipe"],
        windowsHide: true,
      });
    } catch (e) {
      resolve({ spawnError: e });
      return;
    }
    let stderr = "";
    let done = false;
    const finish = (r) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ timedOut: true });
    }, DATA.opencode_deadline_ms);
    child.stderr.on("data", (d) => {
      if (stderr.length < 65536) stderr += d.toString("utf8");
    });
    child.on("error", (e) => finish({ spawnError: e }));
    child.on("close", (code) => finish({ code, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

function reasonFrom(stderr) {
  const lines = stderr.split(/\r?\n/).filter((l) => l !== "" && !l.startsWith("hookwarden: "));
  return lines.join("\n").slice(0, DATA.max_reason_bytes);
}

export const HookwardenPlugin = async (ctx) => {
  const root = (ctx && (ctx.worktree || ctx.directory)) || process.cwd();
  return {
    "tool.execute.before": async (input, output) => {
      if (!input || input.tool !== "bash") return;
      const command = output && output.args ? output.args.command : undefined;
      if (typeof command !== "string") {
        throw new Error(DATA.invalid_input_js);
      }
      if (engineInstalled(root)) {
        const r = await runLauncher(root, JSON.stringify({ input, output }));
        if (r.code === 0) return;
        if (r.code === 2) throw new Error(reasonFrom(r.stderr) || DATA.denied_no_reason);
        if (r.timedOut) throw new Error(DATA.launcher_timeout);
        if (!r.spawnError) throw new Error(DATA.launcher_failed);
        // python3 could not be started: judge here with the same rules.
      }
      const v = judgeText(command);
      if (!v.allowed) throw new Error(refusal(v.rule));
    },
  };
};
