// The console's one age format lives in ./format; this path stays for the modules that import it here.
export { formatAge } from "./format";
