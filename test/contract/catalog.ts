/**
 * SPEC 4.10's tool catalog, tool by tool with its actions, as the SPEC lists it. The catalog test
 * checks the registry against it; this file is the only copy of the list.
 */
export const SPEC_CATALOG: Record<string, string[]> = {
  // Commerce
  products: ['list_products', 'get_product', 'create_product', 'update_product', 'delete_product'],
  orders: ['list_orders', 'get_order', 'create_order', 'update_order', 'cancel_order'],
  customers: ['list_customers', 'get_customer', 'create_customer', 'update_customer', 'enrich_customer'],
  inventory: ['list_inventory', 'get_inventory', 'adjust_stock', 'transfer_stock'],
  collections: ['list_collections', 'create_collection', 'add_products'],
  loyalty: ['get_balance', 'add_points', 'redeem', 'list_rewards'],
  coupons: ['list_coupons', 'create_coupon', 'validate', 'deactivate'],
  fulfillment: ['create_fulfillment', 'update_tracking', 'get_status'],
  reviews: ['list_reviews', 'approve', 'respond', 'get_summary'],
  tax: ['calculate_tax', 'list_rates', 'get_report'],
  invoices: ['list_invoices', 'create_invoice', 'send', 'mark_paid'],
  wholesale: ['list_prices', 'set_pricing', 'create_bulk_order'],
  // Intelligence
  analytics: ['sales_report', 'inventory_report', 'customer_report'],
  web_search: ['search', 'fetch_page', 'extract_data'],
  discovery: ['get_recommendations', 'similar_products', 'trending'],
  enrichment: ['enrich_product', 'enrich_customer', 'bulk_enrich'],
  embeddings: ['create_embedding', 'query_similar', 'index_catalog'],
  llm: ['generate', 'classify', 'summarize', 'extract'],
  // Marketing
  email: ['send_email', 'list_templates', 'render_template'],
  segments: ['list_segments', 'create_segment', 'get_members'],
  campaigns: ['list_campaigns', 'create_campaign', 'get_metrics', 'pause'],
  affiliates: ['list_affiliates', 'create_affiliate', 'get_earnings'],
  // Content
  documents: ['generate_document', 'list_documents', 'get_document'],
  image_gen: ['generate_image', 'edit_image', 'upscale'],
  video_gen: ['generate_video', 'get_status', 'list_videos'],
  media: ['upload', 'list_media', 'transform', 'delete'],
  remove_bg: ['remove_background', 'batch_remove'],
  // Platform
  workflows: ['list_workflows', 'trigger_workflow', 'get_status'],
  browser: ['navigate', 'screenshot', 'extract', 'click'],
  security_scan: ['scan_url', 'check_headers', 'vulnerability_report'],
  store: ['get_store', 'update_settings', 'get_plan'],
  storefront: ['get_config', 'update_theme', 'preview'],
  api_keys: ['list_keys', 'create_key', 'revoke_key'],
  api_docs: ['get_spec', 'list_endpoints', 'get_schema'],
  telemetry: ['query_spans', 'query_errors', 'get_metrics'],
  audit_trail: ['list_events', 'get_event', 'export'],
  svc_login: ['login', 'refresh_token', 'logout'],
  svc_status: ['get_status', 'get_incidents', 'subscribe'],
  svc_stores: ['list_stores', 'switch_store', 'get_current'],
  local_agent: ['list_nodes', 'get_node', 'run_task'],
  launch_cluster: ['launch', 'get_status', 'terminate'],
  webhooks_mgmt: ['list_webhooks', 'create_webhook', 'test', 'delete'],
  // Operations
  voice: ['make_call', 'list_calls', 'get_recording'],
  supply_chain: ['list_suppliers', 'create_po', 'track_shipment'],
  locations: ['list_locations', 'create_location', 'update_location'],
  phone: ['list_conversations', 'get_number'],
  wallet: ['get_balance', 'add_funds', 'list_transactions'],
  pipeline: ['list_deals', 'create_deal', 'move_stage', 'get_forecast'],
};

/** Our tools beside the catalog (SPEC 4.2-4.5, 4.7, 4.8), and the meta-tool: 48 + 5 + 1 = 54. */
export const OUR_TOOLS = ['agents', 'custom_tools', 'tool_executions', 'qr_codes', 'inbox'];
export const META_TOOLS = ['discover_tools'];
