// Benchmark driver (skewguard's BenchmarkRegisteredRow): imports a rendered
// opencode plugin (copied to a .mjs path) with the context opencode 1.18.33
// gives it (directory and worktree: the project) and, interleaved, times its
// tool.execute.before hook on a harmless bash call (the plugin spawns the
// launcher, which hands off to the engine) and a direct spawn of the engine
// with the same stdin, the way the plugin spawns a child (no shell).
//
// usage: node opencode_rowbench.mjs PLUGIN.mjs ENGINE N   (cwd: the project)
// prints {"row":[ms...],"direct":[ms...]}
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";

const [pluginPath, engine, nText] = process.argv.slice(2);
const n = Number(nText);
const mod = await import(pathToFileURL(pluginPath).href);
const plugin = Object.values(mod)[0];
const root = process.cwd();
const hooks = await plugin({ directory: root, worktree: root });
const hook = hooks["tool.execute.before"];
const input = { tool: "bash", sessionID: "s", callID: "c" };
const output = { args: { command: "git status", description: "d" } };
const stdin = JSON.stringify({ input, output, cwd: root });

function direct() {
  return new Promise((resolve, reject) => {
    const child = spawn(engine, ["hook", "opencode", "pre-tool"], { cwd: root, stdio: ["pipe", "ignore", "pipe"] });
    child.stderr.on("data", () => {});
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error("engine exit " + code))));
    child.stdin.end(stdin);
  });
}

async function timed(f) {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const out = { row: [], direct: [] };
for (let i = 0; i < n; i++) {
  // Alternate which goes first, so neither arm always runs on a warm cache.
  const first = i % 2 === 0;
  if (first) out.row.push(await timed(() => hook(input, output)));
  out.direct.push(await timed(direct));
  if (!first) out.row.push(await timed(() => hook(input, output)));
}
process.stdout.write(JSON.stringify(out));
