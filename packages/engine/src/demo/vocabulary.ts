/**
 * The word lists the demo catalog is made of: departments and their leaf categories (each leaf names
 * the product noun used in titles), adjectives, colours, materials, variant words and brand syllables.
 * Orders matter: earlier entries are the more common ones under the Zipf samplers.
 * @module
 */

/** A department: its name, typical price (median, in currency units), typical height (cm), and leaves. */
export interface Department {
  name: string;
  medianPrice: number;
  medianHeightCm: number;
  /** Leaf categories: [category name, product noun used in titles, sub-group]. */
  leaves: readonly (readonly [string, string, string])[];
}

export const DEPARTMENTS: readonly Department[] = [
  { name: 'Clothing', medianPrice: 29, medianHeightCm: 4, leaves: [
    ['T-Shirts', 't-shirt', 'Tops'], ['Shirts', 'shirt', 'Tops'], ['Jeans', 'jeans', 'Bottoms'], ['Dresses', 'dress', 'Dresses & Skirts'],
    ['Jackets', 'jacket', 'Outerwear'], ['Sweaters', 'sweater', 'Knitwear'], ['Hoodies', 'hoodie', 'Tops'], ['Shorts', 'shorts', 'Bottoms'],
    ['Skirts', 'skirt', 'Dresses & Skirts'], ['Coats', 'coat', 'Outerwear'], ['Leggings', 'leggings', 'Bottoms'], ['Pyjamas', 'pyjamas', 'Nightwear'],
  ] },
  { name: 'Footwear', medianPrice: 55, medianHeightCm: 12, leaves: [
    ['Running Shoes', 'running shoes', 'Sports Shoes'], ['Sneakers', 'sneakers', 'Casual Shoes'], ['Boots', 'boots', 'Boots'],
    ['Sandals', 'sandals', 'Sandals & Slippers'], ['Slippers', 'slippers', 'Sandals & Slippers'], ['Loafers', 'loafers', 'Formal Shoes'],
    ['Heels', 'heels', 'Formal Shoes'], ['Hiking Shoes', 'hiking shoes', 'Sports Shoes'], ['Flip Flops', 'flip flops', 'Sandals & Slippers'],
    ['Football Boots', 'football boots', 'Sports Shoes'],
  ] },
  { name: 'Electronics', medianPrice: 120, medianHeightCm: 15, leaves: [
    ['Headphones', 'headphones', 'Audio'], ['Speakers', 'bluetooth speaker', 'Audio'], ['Televisions', 'smart tv', 'TV & Video'],
    ['Cameras', 'digital camera', 'Cameras'], ['Smartwatches', 'smartwatch', 'Wearables'], ['Earbuds', 'wireless earbuds', 'Audio'],
    ['Projectors', 'projector', 'TV & Video'], ['Drones', 'drone', 'Cameras'], ['Soundbars', 'soundbar', 'Audio'], ['E-Readers', 'e-reader', 'Tablets'],
  ] },
  { name: 'Computers', medianPrice: 90, medianHeightCm: 6, leaves: [
    ['Laptops', 'laptop', 'Computers'], ['Monitors', 'monitor', 'Peripherals'], ['Keyboards', 'keyboard', 'Peripherals'],
    ['Mice', 'mouse', 'Peripherals'], ['Printers', 'printer', 'Printers'], ['Routers', 'wifi router', 'Networking'],
    ['External Drives', 'external hard drive', 'Storage'], ['USB Flash Drives', 'usb flash drive', 'Storage'], ['Webcams', 'webcam', 'Peripherals'],
    ['Laptop Bags', 'laptop bag', 'Accessories'],
  ] },
  { name: 'Mobiles & Accessories', medianPrice: 25, medianHeightCm: 2, leaves: [
    ['Smartphones', 'smartphone', 'Phones'], ['Phone Cases', 'phone case', 'Cases & Covers'], ['Screen Protectors', 'screen protector', 'Cases & Covers'],
    ['Chargers', 'charger', 'Power'], ['Power Banks', 'power bank', 'Power'], ['Cables', 'charging cable', 'Power'],
    ['Car Mounts', 'car mount', 'Holders'], ['Selfie Sticks', 'selfie stick', 'Holders'], ['Tablets', 'tablet', 'Phones'],
  ] },
  { name: 'Kitchen & Dining', medianPrice: 24, medianHeightCm: 18, leaves: [
    ['Cookware Sets', 'cookware set', 'Cookware'], ['Frying Pans', 'frying pan', 'Cookware'], ['Knives', 'chef knife', 'Cutlery'],
    ['Coffee Makers', 'coffee maker', 'Appliances'], ['Blenders', 'blender', 'Appliances'], ['Mugs', 'mug', 'Tableware'],
    ['Dinner Sets', 'dinner set', 'Tableware'], ['Water Bottles', 'water bottle', 'Storage'], ['Lunch Boxes', 'lunch box', 'Storage'],
    ['Kettles', 'electric kettle', 'Appliances'], ['Toasters', 'toaster', 'Appliances'],
  ] },
  { name: 'Home Decor', medianPrice: 19, medianHeightCm: 30, leaves: [
    ['Wall Clocks', 'wall clock', 'Clocks'], ['Vases', 'vase', 'Decor'], ['Candles', 'scented candle', 'Decor'],
    ['Photo Frames', 'photo frame', 'Decor'], ['Wall Art', 'wall art', 'Art'], ['Lamps', 'table lamp', 'Lighting'],
    ['Mirrors', 'wall mirror', 'Decor'], ['Artificial Plants', 'artificial plant', 'Decor'], ['String Lights', 'string lights', 'Lighting'],
  ] },
  { name: 'Home Furnishing', medianPrice: 32, medianHeightCm: 10, leaves: [
    ['Bedsheets', 'bedsheet', 'Bed Linen'], ['Curtains', 'curtain', 'Window'], ['Cushion Covers', 'cushion cover', 'Cushions'],
    ['Blankets', 'blanket', 'Bed Linen'], ['Towels', 'bath towel', 'Bath'], ['Rugs', 'rug', 'Floor'], ['Pillows', 'pillow', 'Bed Linen'],
    ['Duvets', 'duvet', 'Bed Linen'], ['Bath Mats', 'bath mat', 'Bath'], ['Table Covers', 'table cover', 'Table Linen'],
  ] },
  { name: 'Furniture', medianPrice: 160, medianHeightCm: 80, leaves: [
    ['Sofas', 'sofa', 'Living Room'], ['Office Chairs', 'office chair', 'Office'], ['Desks', 'desk', 'Office'], ['Bookshelves', 'bookshelf', 'Storage'],
    ['Beds', 'bed frame', 'Bedroom'], ['Dining Tables', 'dining table', 'Dining'], ['Coffee Tables', 'coffee table', 'Living Room'],
    ['Wardrobes', 'wardrobe', 'Bedroom'], ['Bar Stools', 'bar stool', 'Dining'], ['Shoe Racks', 'shoe rack', 'Storage'],
  ] },
  { name: 'Beauty', medianPrice: 14, medianHeightCm: 12, leaves: [
    ['Face Creams', 'face cream', 'Skin Care'], ['Shampoos', 'shampoo', 'Hair Care'], ['Lipsticks', 'lipstick', 'Makeup'],
    ['Perfumes', 'perfume', 'Fragrance'], ['Sunscreens', 'sunscreen', 'Skin Care'], ['Hair Dryers', 'hair dryer', 'Appliances'],
    ['Nail Polish', 'nail polish', 'Makeup'], ['Face Wash', 'face wash', 'Skin Care'], ['Conditioners', 'conditioner', 'Hair Care'],
    ['Trimmers', 'beard trimmer', 'Appliances'],
  ] },
  { name: 'Jewellery', medianPrice: 38, medianHeightCm: 3, leaves: [
    ['Necklaces', 'necklace', 'Necklaces & Chains'], ['Earrings', 'earrings', 'Earrings'], ['Rings', 'ring', 'Rings'],
    ['Bracelets', 'bracelet', 'Bracelets'], ['Pendants', 'pendant', 'Necklaces & Chains'], ['Anklets', 'anklet', 'Bracelets'],
    ['Brooches', 'brooch', 'Accessories'], ['Jewellery Sets', 'jewellery set', 'Sets'],
  ] },
  { name: 'Watches', medianPrice: 75, medianHeightCm: 8, leaves: [
    ['Analog Watches', 'analog watch', 'Wrist Watches'], ['Digital Watches', 'digital watch', 'Wrist Watches'],
    ['Chronographs', 'chronograph watch', 'Wrist Watches'], ['Watch Straps', 'watch strap', 'Accessories'],
    ['Pocket Watches', 'pocket watch', 'Wrist Watches'], ['Fitness Bands', 'fitness band', 'Smart'],
  ] },
  { name: 'Sports & Fitness', medianPrice: 35, medianHeightCm: 25, leaves: [
    ['Yoga Mats', 'yoga mat', 'Yoga'], ['Dumbbells', 'dumbbell', 'Strength'], ['Bicycles', 'bicycle', 'Cycling'],
    ['Tennis Rackets', 'tennis racket', 'Racket Sports'], ['Footballs', 'football', 'Team Sports'], ['Resistance Bands', 'resistance band', 'Strength'],
    ['Skipping Ropes', 'skipping rope', 'Cardio'], ['Treadmills', 'treadmill', 'Cardio'], ['Swimming Goggles', 'swimming goggles', 'Swimming'],
    ['Badminton Rackets', 'badminton racket', 'Racket Sports'], ['Camping Tents', 'camping tent', 'Outdoor'],
  ] },
  { name: 'Toys & Games', medianPrice: 22, medianHeightCm: 20, leaves: [
    ['Building Blocks', 'building blocks', 'Construction'], ['Dolls', 'doll', 'Dolls'], ['Puzzles', 'jigsaw puzzle', 'Puzzles'],
    ['Board Games', 'board game', 'Games'], ['Remote Control Cars', 'remote control car', 'Vehicles'], ['Soft Toys', 'soft toy', 'Plush'],
    ['Action Figures', 'action figure', 'Figures'], ['Toy Trains', 'toy train', 'Vehicles'], ['Art Kits', 'art kit', 'Creative'],
  ] },
  { name: 'Baby Care', medianPrice: 20, medianHeightCm: 20, leaves: [
    ['Diapers', 'diapers', 'Diapering'], ['Baby Wipes', 'baby wipes', 'Diapering'], ['Feeding Bottles', 'feeding bottle', 'Feeding'],
    ['Strollers', 'stroller', 'Gear'], ['Baby Carriers', 'baby carrier', 'Gear'], ['Baby Blankets', 'baby blanket', 'Bedding'],
    ['Teethers', 'teether', 'Feeding'], ['High Chairs', 'high chair', 'Gear'],
  ] },
  { name: 'Bags & Luggage', medianPrice: 45, medianHeightCm: 40, leaves: [
    ['Backpacks', 'backpack', 'Backpacks'], ['Handbags', 'handbag', 'Handbags'], ['Suitcases', 'suitcase', 'Luggage'],
    ['Wallets', 'wallet', 'Small Goods'], ['Duffel Bags', 'duffel bag', 'Luggage'], ['Tote Bags', 'tote bag', 'Handbags'],
    ['Sling Bags', 'sling bag', 'Handbags'], ['Travel Pouches', 'travel pouch', 'Small Goods'],
  ] },
  { name: 'Automotive', medianPrice: 18, medianHeightCm: 15, leaves: [
    ['Car Covers', 'car cover', 'Exterior'], ['Seat Covers', 'seat cover', 'Interior'], ['Car Chargers', 'car charger', 'Electronics'],
    ['Helmets', 'helmet', 'Riding Gear'], ['Car Vacuum Cleaners', 'car vacuum cleaner', 'Cleaning'], ['Dash Cams', 'dash cam', 'Electronics'],
    ['Tyre Inflators', 'tyre inflator', 'Tools'], ['Car Perfumes', 'car perfume', 'Interior'],
  ] },
  { name: 'Books & Stationery', medianPrice: 9, medianHeightCm: 3, leaves: [
    ['Notebooks', 'notebook', 'Paper'], ['Pens', 'pen', 'Writing'], ['Diaries', 'diary', 'Paper'], ['Novels', 'novel', 'Books'],
    ['Cookbooks', 'cookbook', 'Books'], ['Colour Pencils', 'colour pencils', 'Art Supplies'], ['Desk Organisers', 'desk organiser', 'Office'],
    ['Calculators', 'calculator', 'Office'],
  ] },
  { name: 'Garden & Outdoors', medianPrice: 27, medianHeightCm: 35, leaves: [
    ['Planters', 'planter', 'Pots'], ['Garden Hoses', 'garden hose', 'Watering'], ['Lawn Mowers', 'lawn mower', 'Tools'],
    ['Bird Feeders', 'bird feeder', 'Wildlife'], ['Garden Chairs', 'garden chair', 'Furniture'], ['Barbecue Grills', 'barbecue grill', 'Cooking'],
    ['Solar Lights', 'solar light', 'Lighting'], ['Pruning Shears', 'pruning shears', 'Tools'],
  ] },
  { name: 'Pet Supplies', medianPrice: 16, medianHeightCm: 20, leaves: [
    ['Dog Food', 'dog food', 'Dogs'], ['Cat Food', 'cat food', 'Cats'], ['Dog Beds', 'dog bed', 'Dogs'], ['Cat Litter', 'cat litter', 'Cats'],
    ['Pet Toys', 'pet toy', 'Toys'], ['Leashes', 'leash', 'Dogs'], ['Aquariums', 'aquarium', 'Fish'], ['Scratching Posts', 'scratching post', 'Cats'],
  ] },
  { name: 'Tools & Hardware', medianPrice: 30, medianHeightCm: 20, leaves: [
    ['Drills', 'cordless drill', 'Power Tools'], ['Screwdriver Sets', 'screwdriver set', 'Hand Tools'], ['Tool Boxes', 'tool box', 'Storage'],
    ['Measuring Tapes', 'measuring tape', 'Hand Tools'], ['Ladders', 'ladder', 'Access'], ['Angle Grinders', 'angle grinder', 'Power Tools'],
    ['Work Lights', 'work light', 'Lighting'], ['Wrench Sets', 'wrench set', 'Hand Tools'],
  ] },
  { name: 'Grocery', medianPrice: 6, medianHeightCm: 15, leaves: [
    ['Coffee', 'ground coffee', 'Beverages'], ['Tea', 'green tea', 'Beverages'], ['Chocolates', 'dark chocolate', 'Snacks'],
    ['Olive Oil', 'olive oil', 'Pantry'], ['Pasta', 'pasta', 'Pantry'], ['Breakfast Cereals', 'breakfast cereal', 'Breakfast'],
    ['Nuts', 'mixed nuts', 'Snacks'], ['Spices', 'spice mix', 'Pantry'], ['Honey', 'honey', 'Breakfast'],
  ] },
];

/** Descriptive adjectives, most common first. */
export const ADJECTIVES = [
  'classic', 'premium', 'slim', 'lightweight', 'wireless', 'portable', 'compact', 'soft', 'durable', 'modern', 'vintage', 'casual',
  'comfort', 'ultra', 'pro', 'essential', 'deluxe', 'eco', 'smart', 'waterproof', 'foldable', 'adjustable', 'stylish', 'organic',
  'handmade', 'heavy duty', 'rechargeable', 'ergonomic', 'breathable', 'quick dry', 'non-stick', 'stainless', 'minimalist', 'rustic',
  'luxury', 'sporty', 'elegant', 'retro', 'travel', 'kids', 'women\'s', 'men\'s', 'unisex', 'outdoor', 'indoor', 'mini', 'large',
  'extra large', 'cotton-rich', 'insulated', 'anti-slip', 'scented', 'unscented', 'printed', 'solid', 'striped', 'checked', 'floral',
  'textured', 'quilted', 'padded', 'reversible', 'stackable', 'magnetic', 'digital', 'analog', 'silent', 'turbo', 'hybrid', 'fast',
] as const;

/** Colours, most common first. */
export const COLOURS = [
  'black', 'white', 'blue', 'grey', 'red', 'navy', 'green', 'beige', 'brown', 'pink', 'silver', 'gold', 'olive', 'maroon', 'yellow',
  'purple', 'orange', 'teal', 'cream', 'charcoal', 'turquoise', 'lavender', 'mustard', 'coral', 'khaki', 'ivory', 'burgundy', 'mint',
] as const;

/** Materials, most common first. */
export const MATERIALS = [
  'cotton', 'leather', 'steel', 'plastic', 'wood', 'wool', 'silk', 'denim', 'ceramic', 'glass', 'bamboo', 'linen', 'aluminium',
  'polyester', 'rubber', 'suede', 'velvet', 'cast iron', 'silicone', 'brass', 'canvas', 'nylon', 'marble', 'jute',
] as const;

/** Size / pack / capacity words appended as the variant part of a title, by kind of department. */
export const VARIANTS_BY_KIND = {
  apparel: ['S', 'M', 'L', 'XL', 'XXL', 'XS', 'pack of 2', 'pack of 3', 'regular fit', 'slim fit'],
  shoes: ['size 8', 'size 9', 'size 10', 'size 7', 'size 11', 'size 6', 'wide fit', 'pair'],
  tech: ['32 gb', '64 gb', '128 gb', '256 gb', '2000 mah', '10000 mah', '10 inch', '15.6 inch', '1.5 m', '2 m', 'usb-c', '4k'],
  home: ['single', 'double', 'queen', 'king', 'set of 2', 'set of 4', '2 pcs', '120 cm', '160 cm', 'large', 'small'],
  consumable: ['500 ml', '1 l', '250 g', '1 kg', '100 ml', 'family pack', 'travel size', 'pack of 6', '50 ml', '2 kg'],
  general: ['pack of 2', 'set of 4', '2 pcs', 'single', 'large', 'small', 'mini', 'xl', 'starter kit', 'refill'],
} as const;

/** Which variant words each department uses. */
export const DEPARTMENT_VARIANT_KIND: Record<string, keyof typeof VARIANTS_BY_KIND> = {
  'Clothing': 'apparel', 'Footwear': 'shoes', 'Electronics': 'tech', 'Computers': 'tech', 'Mobiles & Accessories': 'tech',
  'Kitchen & Dining': 'home', 'Home Decor': 'home', 'Home Furnishing': 'home', 'Furniture': 'home', 'Beauty': 'consumable',
  'Jewellery': 'general', 'Watches': 'general', 'Sports & Fitness': 'general', 'Toys & Games': 'general', 'Baby Care': 'consumable',
  'Bags & Luggage': 'general', 'Automotive': 'general', 'Books & Stationery': 'general', 'Garden & Outdoors': 'general',
  'Pet Supplies': 'consumable', 'Tools & Hardware': 'general', 'Grocery': 'consumable',
};

/** Syllables combined into the brand names. */
export const BRAND_HEADS = [
  'Nor', 'Alt', 'Vel', 'Kor', 'Lum', 'Zen', 'Max', 'Ori', 'Sol', 'Bri', 'Cas', 'Dur', 'Eco', 'Fer', 'Gal', 'Hal', 'Ivo', 'Jas',
  'Kel', 'Lor', 'Mir', 'Nov', 'Ost', 'Pra', 'Qui', 'Rav', 'Sta', 'Tri', 'Urb', 'Vor', 'Wil', 'Xen', 'Yor', 'Zar',
] as const;
export const BRAND_TAILS = [
  'vik', 'ura', 'ex', 'ona', 'ix', 'tek', 'line', 'wood', 'ora', 'ado', 'ant', 'elle', 'ford', 'gen', 'ium', 'ka', 'lux', 'mont',
  'nix', 'os', 'pix', 'ros', 'sen', 'tra', 'umi', 'vo', 'wave', 'za',
] as const;
