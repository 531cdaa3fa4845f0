// The header row is part of the table kit in ./table; this path stays for the modules that import it here.
export { type Column, TableHead } from "./table";
