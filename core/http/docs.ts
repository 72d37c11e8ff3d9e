import type { Services } from './services';
import { buildOpenApi } from './openapi';
// The docs UI is swagger-ui-dist (a runtime dependency): its prebuilt browser bundle needs no
// build step and renders OpenAPI 3.1. The assets are embedded as files so the compiled binary,
// which has no node_modules, serves them itself and the page loads nothing from another host.
// @ts-expect-error TypeScript types the .js as the UMD module itself; a file import is its path string.
import bundleJs from '../../node_modules/swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };
import uiCss from '../../node_modules/swagger-ui-dist/swagger-ui.css' with { type: 'file' };
import favicon from '../../node_modules/swagger-ui-dist/favicon-32x32.png' with { type: 'file' };

type Route = { method: string; path: string; handler: (c: { request: Request }) => Response | Promise<Response> };

/** Files under /docs/, served from the embedded copies. */
export const DOCS_ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui-bundle.js': { file: bundleJs as string, type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { file: uiCss, type: 'text/css; charset=utf-8' },
  'favicon.png': { file: favicon, type: 'image/png' },
};

// Kept in a file of its own rather than inline, so the page runs under a CSP without 'unsafe-inline' scripts.
//
// Swagger UI (5.35) virtualizes the operation list once it has 150 rows or more (tags plus
// operations; this API has more): only the rows near the viewport are in the page, so the
// browser's find-in-page, screen readers and anything reading the page miss the rest. The plugin
// below replaces that list with the plain one Swagger UI renders for shorter lists: every tag with
// all its operations, built from the same components.
const INIT_JS = `function everyOperationInThePage(system) {
  var h = system.React.createElement;
  function Operations(props) {
    var specSelectors = props.specSelectors, getComponent = props.getComponent;
    var tagged = specSelectors.taggedOperations();
    if (tagged.size === 0) return h('h3', null, 'No operations defined in spec!');
    var methods = specSelectors.validOperationMethods();
    var OperationTag = getComponent('OperationTag');
    var OperationContainer = getComponent('OperationContainer', true);
    var operationsOf = function (tagObj, tag) {
      return tagObj.get('operations').map(function (op) {
        var path = op.get('path'), method = op.get('method');
        if (methods.indexOf(method) === -1) return null;
        return h(OperationContainer, { key: path + '-' + method, specPath: op.get('specPath'), op: op, path: path, method: method, tag: tag });
      }).toArray();
    };
    return h('div', null, tagged.map(function (tagObj, tag) {
      return h(OperationTag, {
        key: 'operation-' + tag, tagObj: tagObj, tag: tag, specUrl: specSelectors.url(), getComponent: getComponent,
        oas3Selectors: props.oas3Selectors, layoutSelectors: props.layoutSelectors, layoutActions: props.layoutActions, getConfigs: props.getConfigs,
      }, h('div', { className: 'operation-tag-content' }, operationsOf(tagObj, tag)));
    }).valueSeq().toArray());
  }
  return { components: { operations: Operations } };
}

window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#docs',
  deepLinking: true,
  displayOperationId: true,
  defaultModelsExpandDepth: 0,
  // The default validator badge would send the document to an outside service.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  plugins: [everyOperationInThePage],
  layout: 'BaseLayout',
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
<link rel="icon" type="image/png" href="/docs/favicon.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<noscript>The interactive reference needs JavaScript; the raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/**
 * Only this origin may be reached: a guarantee, checked by the browser, that the page uses no
 * CDN. Swagger UI sets inline style attributes and uses data: images, hence those two allowances.
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const text = (body: string, type: string, extra: Record<string, string> = {}) =>
  new Response(body, { headers: { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', ...extra } });

/** GET /openapi.json, GET /docs and the page's assets. No API key: the reference is public. */
export function docsRoutes(svc: Services): Route[] {
  // The document depends only on the plugin declarations, fixed for the life of the process.
  let openapi: string | undefined;
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/openapi.json',
      handler: () => text((openapi ??= JSON.stringify(buildOpenApi(svc.registry))), 'application/json'),
    },
    { method: 'GET', path: '/docs', handler: () => text(PAGE, 'text/html; charset=utf-8', { 'Content-Security-Policy': CSP }) },
    { method: 'GET', path: '/docs/init.js', handler: () => text(INIT_JS, 'text/javascript; charset=utf-8') },
  ];
  for (const [name, asset] of Object.entries(DOCS_ASSETS)) {
    routes.push({
      method: 'GET',
      path: `/docs/${name}`,
      handler: () =>
        new Response(Bun.file(asset.file), {
          // A new release may ship a new bundle under the same name, so revalidate after an hour.
          headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
        }),
    });
  }
  return routes;
}
