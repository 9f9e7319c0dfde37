// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task bench:startup`: what a small command costs beyond the runtime's own start.
 * Runs, alternating, `deno run` of an empty script and `taskpack conformance` of the 5 KB
 * reference handoff (`deno run -A --lock=deno.lock cli.ts conformance …`, as `deno task` and an
 * installed `taskpack` run it), each a fresh process under `/usr/bin/time`, from the same folder,
 * and prints the medians of wall time and CPU time (user + system) and their ratios. The target
 * (issue 42) is 1.5× on both. A benchmark, not a test: the machine's load moves it.
 *
 * ```sh
 * deno task bench:startup              # 15 rounds after 2 to warm the caches
 * deno task bench:startup --rounds 31
 * ```
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PACK = join(ROOT, "testdata/interop/reference-0.3.0/handoff.taskpack");

/** One run: wall and CPU seconds. */
interface Sample {
  wall: number;
  cpu: number;
}

async function timed(args: string[], cwd: string): Promise<Sample> {
  const started = performance.now();
  const { code, stderr } = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "@@%U %S", Deno.execPath(), ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).output();
  const wall = (performance.now() - started) / 1000;
  const text = new TextDecoder().decode(stderr);
  const times = /@@([\d.]+) ([\d.]+)\s*$/.exec(text);
  if (code !== 0 || !times) throw new Error(`deno ${args.join(" ")} failed (${code}): ${text}`);
  return { wall, cpu: Number(times[1]) + Number(times[2]) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Measures both sides; resolves to their medians. */
export async function benchStartup(
  rounds: number,
): Promise<{ empty: Sample; conformance: Sample }> {
  const scratch = await Deno.makeTempDir({ prefix: "taskpack-startup-" });
  try {
    const empty = join(scratch, "empty.ts");
    await Deno.writeTextFile(empty, "");
    const sides = {
      empty: ["run", empty],
      conformance: ["run", "-A", "--lock=deno.lock", "cli.ts", "conformance", PACK],
    };
    const samples = { empty: [] as Sample[], conformance: [] as Sample[] };
    for (let round = -2; round < rounds; round++) {
      // Alternate who goes first; the first two rounds only warm the caches.
      const order = round % 2
        ? ["empty", "conformance"] as const
        : ["conformance", "empty"] as const;
      for (const side of order) {
        const sample = await timed(sides[side], ROOT);
        if (round >= 0) samples[side].push(sample);
      }
    }
    const summary = (list: Sample[]): Sample => ({
      wall: median(list.map((s) => s.wall)),
      cpu: median(list.map((s) => s.cpu)),
    });
    return { empty: summary(samples.empty), conformance: summary(samples.conformance) };
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--rounds");
  const rounds = at >= 0 ? Number(Deno.args[at + 1]) : 15;
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error("bench:startup: --rounds needs a whole number of rounds, 1 or more");
    Deno.exit(1);
  }
  const { empty, conformance } = await benchStartup(rounds);
  const ms = (seconds: number) => `${Math.round(seconds * 1000)} ms`;
  console.log(`medians of ${rounds} rounds, ${Deno.build.target}, deno ${Deno.version.deno}`);
  console.log(`| run | wall | CPU (user + system) |`);
  console.log(`| --- | ---: | ---: |`);
  console.log(`| deno run of an empty script | ${ms(empty.wall)} | ${ms(empty.cpu)} |`);
  console.log(
    `| taskpack conformance of a 5 KB pack | ${ms(conformance.wall)} | ${ms(conformance.cpu)} |`,
  );
  console.log(
    `| ratio (target 1.5×) | ${(conformance.wall / empty.wall).toFixed(2)}× | ${
      (conformance.cpu / empty.cpu).toFixed(2)
    }× |`,
  );
}
