// npm start: compiles and runs the bundled demo model (demo/model.sw)
// through the `shrew` CLI (js/dist/cli/main.js): model info, outputs on
// seeded random inputs, the JIT tape and the statistics.
import { fileURLToPath } from "node:url";
import { main } from "../js/dist/cli/main.js";

const model = fileURLToPath(new URL("./model.sw", import.meta.url));
const steps = [
  ["info", model],
  ["run", model, "--dims", "Batch=4", "--seed", "7"],
  ["run", model, "--dims", "Batch=4", "--seed", "7", "--executor", "interp"],
  ["dump", model, "--dims", "Batch=4", "--tape"],
  ["stats", model, "--dims", "Batch=4"],
];
for (const args of steps) {
  console.log(`\n$ shrew ${args.map((a) => (a === model ? "demo/model.sw" : a)).join(" ")}`);
  const code = await main(args);
  if (code !== 0) process.exit(code);
}
