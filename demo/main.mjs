// npm start: compiles and runs the bundled demo model (demo/model.sw)
// through the `shrew` CLI (js/dist/cli/main.js): model info, outputs on
// seeded random inputs, the JIT tape and the statistics; then builds the
// model into a bundle and runs that (the same outputs, nothing compiled).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../js/dist/cli/main.js";

const model = fileURLToPath(new URL("./model.sw", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "shrew-demo-"));
const bundle = join(dir, "model.swb");
const steps = [
  ["info", model],
  ["run", model, "--dims", "Batch=4", "--seed", "7"],
  ["run", model, "--dims", "Batch=4", "--seed", "7", "--executor", "interp"],
  ["dump", model, "--dims", "Batch=4", "--tape"],
  ["stats", model, "--dims", "Batch=4"],
  ["build", model, "--dims", "Batch=4", "--seed", "7", "--out", bundle],
  ["run", bundle, "--seed", "7"],
];
for (const args of steps) {
  const shown = args.map((a) => (a === model ? "demo/model.sw" : a === bundle ? "model.swb" : a));
  console.log(`\n$ shrew ${shown.join(" ")}`);
  const code = await main(args, (line) => console.log(line.replaceAll(bundle, "model.swb")));
  if (code !== 0) {
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  }
}
rmSync(dir, { recursive: true, force: true });
