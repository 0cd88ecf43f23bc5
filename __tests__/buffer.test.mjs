// The buffer family against Node's recorded output (fixtures/node/buffer/).
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("buffer");
