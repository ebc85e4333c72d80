// hookwarden opencode plugin (rendered; do not edit by hand).
//
// One file for both plugin APIs. opencode 1.18.33 loads every .js file in
// .opencode/plugins/ with no trust step; a module with a default export
// object must give it server() (1.18.33's loader: "must default export an
// object with server()"), which it calls as the plugin, and then ignores
// the named exports (measured with `opencode debug config`, 2026-12-05). A
// throw from "tool.execute.before" blocks the tool and the thrown message
// goes to the model (../shared/e2e/README.md section 4). OpenCode 2.x loads
// only a default export {id, setup} (its loader: "Plugin must export a
// default definition with an id and an effect or setup function";
// opencode.ai/v2/docs/build/plugins/migrate-v1): setup(ctx) registers
// ctx.tool.hook("execute.before", event) with event.tool and event.input,
// the shell tool is named "shell" (anomalyco/opencode 39547), the location
// is ctx.location {directory, project: {directory}}. The 2.x path is
// unverified: npm serves no OpenCode 2 (`hookwarden clients`). This file
// imports node: built-ins only: importing @opencode-ai/plugin or
// @opencode/plugin makes opencode npm-install it per config folder, which
// stalls offline (same section).
//
// For the shell tool (input.tool or event.tool matching the registration
// row's matcher: bash on 1.x, shell on 2.x; command at output.args.command
// or event.input.command) it calls the skew-guard launcher, `/bin/sh
// .hookwarden/hook.sh opencode pre-tool` (spawned directly, no shell), with
// JSON.stringify({cwd, input, output}) on stdin (cwd: the session
// directory, which the engine places the call by; on 2.x input is {tool,
// sessionID} and output {args: event.input}) when a hookwarden engine is
// installed (HOOKWARDEN_BIN, or hookwarden in an absolute PATH entry outside
// the repository: a binary in the repository is never trusted); otherwise,
// or when /bin/sh cannot be started (Windows), it applies
// hookwarden's built-in text rules, rendered below from the policy
// package, and blocks by throwing the engine's refusal text. A 2.x host
// whose plugin context has no tool.hook (1.18.33's `opencode debug v2`
// preview has none) gets a throw from setup: the plugin fails to load,
// loudly, rather than load and guard nothing.
//
// Before every model call ("experimental.chat.messages.transform", opencode
// 1.18.33; on 2.x ctx.session.hook("context"), when the context offers it,
// unverified) it asks the launcher for the clock line (`opencode prompt`,
// with or without an engine) and adds it to the newest user message (2.x:
// to the system parts).
//
// With HOOKWARDEN_OPENCODE_CANARY set (hookwarden doctor does), the loaded
// plugin runs the commands of that directory's canary.json through the hook
// it registered and writes result-v1.json or result-v2.json there: the proof
// that opencode loaded this file and that its hook judges.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";

const DATA = __HOOKWARDEN_DATA__;

// makeJudge returns judgeText(command) -> {allowed, rule} for the rendered
// data d: an empty command allows, the scan bounds deny, then the first text
// rule (priority order) matching a line of the normalised command denies. It
// is self-contained: its source also runs in a worker thread (judgeBounded).
function makeJudge(d) {
  const rules = d.rules.map((r) => ({ id: r.id, re: new RegExp(r.pattern), requires: r.requires }));
  const normalise = d.normalise.map((n) => ({ re: new RegExp(n.pattern, "g"), replacement: n.replacement }));
  const utf8Bytes = (s) => Buffer.byteLength(s, "utf8");
  const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
  return function judgeText(command) {
    let start = 0;
    let end = command.length;
    while (start < end && d.ascii_space.includes(command[start])) start++;
    while (end > start && d.ascii_space.includes(command[end - 1])) end--;
    if (start === end) return { allowed: true, rule: "" };
    if (utf8Bytes(command) > d.max_command_bytes) return { allowed: false, rule: d.bound_command_rule };
    for (const line of command.split("\n")) {
      if (utf8Bytes(line) > d.max_line_bytes) return { allowed: false, rule: d.bound_line_rule };
    }
    let text = command;
    for (const n of normalise) text = text.replace(n.re, () => n.replacement);
    const lines = text.split("\n");
    const lower = lines.map(asciiLower);
    for (const r of rules) {
      for (let k = 0; k < lines.length; k++) {
        if (r.requires.length > 0 && !r.requires.some((lit) => lower[k].includes(lit))) continue;
        if (r.re.test(lines[k])) return { allowed: false, rule: r.id };
      }
    }
    return { allowed: true, rule: "" };
  };
}

// judgeBounded judges command in a worker thread and ends it at the row's
// deadline: JavaScript RegExp backtracks, and a rule that backtracks too long
// must not hold opencode; a verdict not reached in time is a deny.
function judgeBounded(command) {
  return new Promise((resolve) => {
    const src =
      "const { parentPort, workerData } = require('node:worker_threads');\n" +
      "const makeJudge = " + makeJudge.toString() + ";\n" +
      "parentPort.postMessage(makeJudge(workerData.data)(workerData.command));\n";
    let w;
    try {
      w = new Worker(src, { eval: true, workerData: { data: DATA, command } });
    } catch (e) {
      resolve({ allowed: false, rule: "", why: DATA.judge_failed });
      return;
    }
    let done = false;
    const finish = (v) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        w.terminate();
        resolve(v);
      }
    };
    const timer = setTimeout(() => finish({ allowed: false, rule: "", why: DATA.judge_timeout }), DATA.opencode_deadline_ms);
    w.once("message", (v) => finish(v));
    w.once("error", () => finish({ allowed: false, rule: "", why: DATA.judge_failed }));
    w.once("exit", () => finish({ allowed: false, rule: "", why: DATA.judge_failed }));
  });
}

// refusal returns the engine's refusal text for a built-in rule id.
function refusal(rule) {
  return DATA.reasons[rule];
}

function engineInstalled(root) {
  if (process.env.HOOKWARDEN_BIN) return true;
  const exe = process.platform === "win32" ? ["hookwarden.exe", "hookwarden"] : ["hookwarden"];
  const inside = path.resolve(root) + path.sep;
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir) || (path.resolve(dir) + path.sep).startsWith(inside)) continue;
    if (exe.some((e) => fs.existsSync(path.join(dir, e)))) return true;
  }
  return false;
}

// runLauncher resolves {code, stdout, stderr} of the launcher run for the
// opencode row event, or {spawnError} when /bin/sh could not be started. It
// ends the launcher at the row's deadline.
function runLauncher(root, event, stdin) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(DATA.shell, [path.join(root, ".hookwarden", "hook.sh"), "opencode", event], {
        cwd: root,
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (e) {
      resolve({ spawnError: e });
      return;
    }
    let stdout = "";
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
    child.stdout.on("data", (d) => {
      if (stdout.length < 65536) stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d) => {
      if (stderr.length < 65536) stderr += d.toString("utf8");
    });
    child.on("error", (e) => finish({ spawnError: e }));
    child.on("close", (code) => finish({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

// clockText resolves the clock line the launcher answers for the opencode
// prompt row (the engine's, or the launcher's own from date(1) when no
// engine is installed: {"additionalContext": line} on stdout), or "" when
// there is none (the launcher failed, /bin/sh is missing): the line only
// informs the model, so nothing is refused without it.
async function clockText(root, cwd) {
  const r = await runLauncher(root, "prompt", JSON.stringify({ cwd }));
  if (r.code !== 0 || !r.stdout) return "";
  try {
    const v = JSON.parse(r.stdout);
    return v && typeof v.additionalContext === "string" ? v.additionalContext : "";
  } catch (e) {
    return "";
  }
}

// addClock appends the clock line as a text part of the newest user message
// of messages (opencode 1.18.33 hands "experimental.chat.messages.transform"
// the session's messages, {info, parts}, before every model call and sends
// a user message's text parts that are neither ignored nor empty). The
// messages are opencode's copy for this one request: nothing is stored.
function addClock(messages, text) {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!m || !m.info || m.info.role !== "user" || !Array.isArray(m.parts)) continue;
    const first = m.parts.find((p) => p && typeof p.id === "string") || {};
    m.parts.push({
      id: (first.id || "prt") + "_hookwarden_clock",
      sessionID: m.info.sessionID,
      messageID: m.info.id,
      type: "text",
      text,
      synthetic: true,
    });
    return;
  }
}

function reasonFrom(stderr) {
  const lines = stderr.split(/\r?\n/).filter((l) => l !== "" && !l.startsWith("hookwarden: "));
  return lines.join("\n").slice(0, DATA.max_reason_bytes);
}

// shellTool reports whether tool names the shell tool of the opencode
// pre-tool row (its matcher, rendered into the data).
const shellToolRE = new RegExp(DATA.shell_tools);
function shellTool(tool) {
  return typeof tool === "string" && shellToolRE.test(tool);
}

// guardShell judges one shell call whose arguments are args (command at
// args.command) and throws the refusal when it is refused: through the
// launcher with payload on stdin when an engine is installed, else by the
// built-in rules.
async function guardShell(root, payload, args) {
  const command = args && typeof args === "object" ? args.command : undefined;
  if (typeof command !== "string") {
    throw new Error(DATA.invalid_input_js);
  }
  if (engineInstalled(root)) {
    const r = await runLauncher(root, "pre-tool", JSON.stringify(payload));
    if (r.code === 0) return;
    if (r.code === 2) throw new Error(reasonFrom(r.stderr) || DATA.denied_no_reason);
    if (r.timedOut) throw new Error(DATA.launcher_timeout);
    if (!r.spawnError) throw new Error(DATA.launcher_failed);
    // /bin/sh could not be started: judge here with the same rules.
  }
  const v = await judgeBounded(command);
  if (!v.allowed) throw new Error(v.rule ? refusal(v.rule) : v.why);
}

// runCanary runs doctor's canary through the hook the host loaded (see the
// header): call(command) invokes that hook for a shell call of command.
// Without the variable, or with a relative path or no readable canary.json,
// it does nothing; the result file is created, never overwritten.
async function runCanary(api, call) {
  const dir = process.env[DATA.canary_env];
  if (!dir || !path.isAbsolute(dir)) return;
  let req;
  try {
    req = JSON.parse(fs.readFileSync(path.join(dir, "canary.json"), "utf8"));
  } catch (e) {
    return;
  }
  const results = [];
  for (const command of Array.isArray(req && req.commands) ? req.commands : []) {
    if (typeof command !== "string") continue;
    try {
      await call(command);
      results.push({ command, blocked: false, message: "" });
    } catch (e) {
      results.push({ command, blocked: true, message: String(e && e.message) });
    }
  }
  try {
    fs.writeFileSync(path.join(dir, "result-" + api + ".json"), JSON.stringify({ api, results }), { flag: "wx" });
  } catch (e) {
    // doctor finds no result and reports the plugin as not proven loaded
  }
}

// HookwardenPlugin is the opencode 1.x plugin (the default export's
// server(); also exported by name for hookwarden's own tests).
export const HookwardenPlugin = async (ctx) => {
  const root = (ctx && (ctx.worktree || ctx.directory)) || process.cwd();
  // The engine refuses a payload without its directory (issue 14 item 7).
  // opencode's plugin context: directory is the session's project
  // directory, worktree its git root (@opencode-ai/plugin ToolContext docs).
  const cwd = (ctx && ctx.directory) || root;
  const hooks = {
    "tool.execute.before": async (input, output) => {
      if (!input || !shellTool(input.tool)) return;
      await guardShell(root, { input, output, cwd }, output && output.args);
    },
    // The prompt row (issue 19 item 1): the clock line on every model call.
    "experimental.chat.messages.transform": async (_input, output) => {
      if (!output || !Array.isArray(output.messages)) return;
      const text = await clockText(root, cwd);
      if (text) addClock(output.messages, text);
    },
  };
  await runCanary("v1", (command) =>
    hooks["tool.execute.before"]({ tool: "bash", sessionID: "hookwarden-canary", callID: "hookwarden-canary" }, { args: { command } }),
  );
  return hooks;
};

// setupV2 is the OpenCode 2.x plugin's setup (unverified, see the header).
async function setupV2(ctx) {
  if (!ctx || !ctx.tool || typeof ctx.tool.hook !== "function") {
    throw new Error(DATA.no_tool_hook);
  }
  const loc = (ctx.location && typeof ctx.location === "object" && ctx.location) || {};
  const root = (loc.project && loc.project.directory) || loc.directory || process.cwd();
  const cwd = loc.directory || root;
  const before = async (event) => {
    if (!event || !shellTool(event.tool)) return;
    const input = { tool: event.tool };
    if (typeof event.sessionID === "string") input.sessionID = event.sessionID;
    if (typeof event.callID === "string") input.callID = event.callID;
    await guardShell(root, { input, output: { args: event.input }, cwd }, event.input);
  };
  await ctx.tool.hook("execute.before", before);
  if (ctx.session && typeof ctx.session.hook === "function") {
    await ctx.session.hook("context", async (event) => {
      if (!event || !Array.isArray(event.system)) return;
      const text = await clockText(root, cwd);
      if (text) event.system.push({ type: "text", text });
    });
  }
  await runCanary("v2", (command) => before({ tool: "shell", sessionID: "hookwarden-canary", input: { command } }));
}

export default { id: "hookwarden", server: HookwardenPlugin, setup: setupV2 };

// The judge of the built-in rules, for hookwarden's own tests (the work-budget
// test measures it without the worker's start-up cost). Not enumerable, so
// the module still exports exactly one named function.
Object.defineProperty(HookwardenPlugin, "judgeText", { value: makeJudge(DATA), enumerable: false });
