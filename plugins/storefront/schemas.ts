import { Type } from '@sinclair/typebox';
import { Input, Timestamp, WebUrl } from '../../core/sdk';

export const FONTS = [
  'system-ui',
  'Inter',
  'Roboto',
  'Open Sans',
  'Lato',
  'Montserrat',
  'Merriweather',
  'Playfair Display',
  'Georgia',
  'Courier New',
] as const;
export const LAYOUTS = ['classic', 'grid', 'minimal'] as const;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Color = (description: string) =>
  Type.String({ pattern: '^#[0-9a-fA-F]{6}$', errorMessage: 'must be a color as #rrggbb', description: `${description} #rrggbb.` });
const Font = (description: string) =>
  Type.Union(
    FONTS.map((f) => Type.Literal(f)),
    { description },
  );
const Layout = Type.Union(
  LAYOUTS.map((l) => Type.Literal(l)),
  { description: 'classic (hero and rows), grid (products first), minimal (text only).' },
);
const Text = (max: number, description: string) =>
  Type.String({ maxLength: max, description: `${description} Shown as text: HTML in it is escaped.` });

export interface Theme {
  primary_color: string;
  accent_color: string;
  background_color: string;
  text_color: string;
  heading_font: (typeof FONTS)[number];
  body_font: (typeof FONTS)[number];
  logo_url: string | null;
  layout: (typeof LAYOUTS)[number];
  products_per_row: number;
  announcement_text: string | null;
  hero_title: string | null;
  hero_subtitle: string | null;
  footer_text: string | null;
}

export const DEFAULT_THEME: Theme = {
  primary_color: '#1f2937',
  accent_color: '#2563eb',
  background_color: '#ffffff',
  text_color: '#111827',
  heading_font: 'system-ui',
  body_font: 'system-ui',
  logo_url: null,
  layout: 'classic',
  products_per_row: 4,
  announcement_text: null,
  hero_title: null,
  hero_subtitle: null,
  footer_text: null,
};

const ThemeOut = Type.Object({
  primary_color: Type.String(),
  accent_color: Type.String(),
  background_color: Type.String(),
  text_color: Type.String(),
  heading_font: Type.String(),
  body_font: Type.String(),
  logo_url: Nullable(Type.String()),
  layout: Layout,
  products_per_row: Type.Integer(),
  announcement_text: Nullable(Type.String()),
  hero_title: Nullable(Type.String()),
  hero_subtitle: Nullable(Type.String()),
  footer_text: Nullable(Type.String()),
});

export const StorefrontConfig = Type.Object({
  object: Type.Literal('storefront_config'),
  theme: ThemeOut,
  fonts: Type.Array(Type.String(), { description: 'The fonts heading_font and body_font may name.' }),
  preview_path: Type.String({ description: 'GET it (with a credential) for the home page as HTML.' }),
  updated_at: Nullable(Timestamp()),
});

export const ThemeUpdate = Input({
  primary_color: Type.Optional(Color('Buttons and header.')),
  accent_color: Type.Optional(Color('Links and prices.')),
  background_color: Type.Optional(Color('The page.')),
  text_color: Type.Optional(Color('Body text.')),
  heading_font: Type.Optional(Font('Headings; one of the fixed list (get_config `fonts`).')),
  body_font: Type.Optional(Font('Body text; one of the fixed list.')),
  logo_url: Type.Optional(Nullable(WebUrl('The logo image, https; null removes it.', { httpsOnly: true, maxLength: 2000 }))),
  layout: Type.Optional(Layout),
  products_per_row: Type.Optional(Type.Integer({ minimum: 2, maximum: 6, description: 'Products per row on the home page, 2 to 6.' })),
  announcement_text: Type.Optional(Nullable(Text(200, 'A bar above the header; null removes it.'))),
  hero_title: Type.Optional(Nullable(Text(120, 'The home page headline.'))),
  hero_subtitle: Type.Optional(Nullable(Text(300, 'Under the headline.'))),
  footer_text: Type.Optional(Nullable(Text(500, 'The footer.'))),
});
