// Test driver (templates parity and work-budget tests): imports a rendered
// opencode plugin (copied to a .mjs path) and calls its tool.execute.before
// hook the way opencode 1.18.33 does (the default export's server(), called
// with the plugin context), or with "api":"v2" the way OpenCode 2.x's
// loader is documented to (the default export's setup(ctx), whose
// ctx.tool.hook("execute.before", fn) registration is then called with
// {tool, sessionID, input}), for many commands in one process.
//
// usage: node opencode_driver.mjs RENDERED_PLUGIN.mjs < {"mode":..., ...}
// mode "hook": {"api":"v1"|"v2","calls":[{"input":{...},"output":{...}}]} -> [{"thrown":bool,"message":str}...]
//   (v2: input.tool and output.args become the event's tool and input)
// mode "cost": {"commands":[TEXT...], "reps":N} -> [seconds per judge call...]
import fs from "node:fs";
import { pathToFileURL } from "node:url";

const mod = await import(pathToFileURL(process.argv[2]).href);
const exported = Object.entries(mod).filter((e) => e[0] !== "default");
if (exported.length !== 1 || typeof exported[0][1] !== "function") {
  throw new Error("the plugin must export exactly one named function, got " + exported.map((e) => e[0]).join(","));
}
const def = mod.default;
if (!def || typeof def !== "object" || typeof def.id !== "string" || def.server !== exported[0][1] || typeof def.setup !== "function") {
  throw new Error("the plugin's default export must be {id, server: the named plugin, setup}");
}
const req = JSON.parse(fs.readFileSync(0, "utf8"));
let hook;
if (req.api === "v2") {
  const registered = {};
  await def.setup({
    location: { directory: process.cwd(), project: { directory: process.cwd() } },
    tool: { hook: async (name, fn) => { registered[name] = fn; return { dispose: async () => {} }; } },
  });
  const fn = registered["execute.before"];
  if (typeof fn !== "function") throw new Error("setup registered no execute.before hook");
  hook = (input, output) => fn({ tool: input && input.tool, sessionID: input && input.sessionID, input: output && output.args });
} else {
  const hooks = await def.server({ directory: process.cwd(), worktree: process.cwd() });
  hook = hooks["tool.execute.before"];
}
// cost mode measures the plugin's judge of the built-in rules itself.
const judge = exported[0][1].judgeText;
const out = [];
async function call(input, output) {
  try {
    await hook(input, output);
    return { thrown: false, message: "" };
  } catch (e) {
    return { thrown: true, message: String(e && e.message) };
  }
}
if (req.mode === "hook") {
  for (const c of req.calls) out.push(await call(c.input, c.output));
} else if (req.mode === "cost") {
  for (const [i, cmd] of req.commands.entries()) {
    process.stderr.write("start " + i + "\n");
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < req.reps; i++) judge(cmd);
      const dt = Number(process.hrtime.bigint() - t0) / 1e9 / req.reps;
      if (dt < best) best = dt;
    }
    out.push(best);
  }
} else {
  throw new Error("unknown mode");
}
process.stdout.write(JSON.stringify(out));
