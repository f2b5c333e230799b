// itemsjs 2.4.4 ships no type declarations; the adapter declares the shapes it uses.
declare module 'itemsjs' {
  const itemsjs: (items: unknown[], config: unknown) => unknown;
  export default itemsjs;
}
