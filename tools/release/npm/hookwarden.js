#!/usr/bin/env node
// hookwarden's npm launcher: runs the hookwarden binary of this platform's
// package (hookwarden-<platform>-<arch>, an optional dependency that npm
// installs only where its "os" and "cpu" fields match) with this process's
// arguments, standard streams and environment, and exits with its exit code,
// or dies of the signal that ended it. No install script: the binary is a
// file of the platform package. A missing platform package is exit 2 with the
// reason on stderr: never a silent success (a hook row that reaches this
// launcher must not be let through by it).
'use strict';

const { spawnSync } = require('child_process');

const platforms = {
  'linux-x64': 'hookwarden-linux-x64',
  'linux-arm64': 'hookwarden-linux-arm64',
  'darwin-x64': 'hookwarden-darwin-x64',
  'darwin-arm64': 'hookwarden-darwin-arm64',
  'win32-x64': 'hookwarden-win32-x64',
  'win32-arm64': 'hookwarden-win32-arm64',
};

const key = `${process.platform}-${process.arch}`;
const pkg = platforms[key];
if (!pkg) {
  process.stderr.write(`hookwarden: npm: no hookwarden binary for ${key} (built for ${Object.keys(platforms).join(', ')}); build it with go install\n`);
  process.exit(2);
}
let bin;
try {
  bin = require.resolve(`${pkg}/bin/hookwarden${process.platform === 'win32' ? '.exe' : ''}`);
} catch (e) {
  process.stderr.write(`hookwarden: npm: the package ${pkg} is not installed (optional dependencies omitted?); reinstall hookwarden without --omit=optional\n`);
  process.exit(2);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: 'inherit' });
if (r.error) {
  process.stderr.write(`hookwarden: npm: ${bin}: ${r.error.message}\n`);
  process.exit(2);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status === null ? 2 : r.status);
