// Prepended to the Emscripten ES-module glue (--extern-pre-js).
// Emscripten 3.1.6's glue reads __dirname under Node, which ES modules do not
// define. Shrew always hands the factory `wasmBinary`, so the glue never loads
// a file through it; an empty directory is enough.
var __dirname = typeof __dirname !== "undefined" ? __dirname : "";
