// The name Bundle ↓ gives the file it downloads, in a real browser
// (web/test/browser.mjs): an example as loaded is named after it, an
// edited one after it with "-edited"; a program that is no longer the
// example (pasted over it) after its own @model name, else its first
// graph. It was "mlp-classifier-edited.swb" for any program typed over the
// first example.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { openPlayground, pasteSource } from "./page.mjs";

let page, close;

before(async () => {
  ({ page, close } = await openPlayground({ beforeLoad: (p) => p.on("dialog", (d) => d.accept()) }));
});

after(async () => {
  await close?.();
});

async function bundleName() {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-bundle")]);
  const name = download.suggestedFilename();
  assert.equal(await page.textContent("#status").then((t) => t.split(":")[0]), `bundle ${name}`);
  return name;
}

test("a bundle is named after the example, the edited example, or the program's @model name or first graph", async () => {
  await page.selectOption("#example-select", "mlp-classifier");
  await page.waitForFunction(() => document.getElementById("graph-select")?.value === "Classifier");
  assert.equal(await bundleName(), "mlp-classifier.swb");
  // Edited, it is still the example: its graphs are there.
  const source = await page.evaluate(() => [...document.querySelectorAll(".cm-content .cm-line")].map((l) => l.textContent).join("\n"));
  await pasteSource(page, `${source}\n// tried a change\n`, "Classifier");
  assert.equal(await bundleName(), "mlp-classifier-edited.swb");
  // Another program pasted over it: its @model name, made fit for a file name.
  await pasteSource(page, '@model { name: "Tiny net/v2"; }\n@graph Foo {\n  input x: Tensor<[2], f32>;\n  output y: x + 1.0;\n}\n', "Foo");
  assert.equal(await bundleName(), "Tiny-net-v2.swb");
  // Without a @model name: its first graph.
  await pasteSource(page, "@graph Bar {\n  input x: Tensor<[2], f32>;\n  output y: x * 2.0;\n}\n" +
    "@graph Baz {\n  input x: Tensor<[2], f32>;\n  output y: Bar(x);\n}\n", "Bar");
  assert.equal(await bundleName(), "Bar.swb");
  assert.deepEqual(page.errors, []);
});
