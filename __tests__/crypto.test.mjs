// The crypto family against Node's recorded output (fixtures/node/crypto/).
import { replayFamily } from "./node-fixtures.mjs";

replayFamily("crypto");
