// The demo catalogue's raw lists, as pipe-separated tables (one row a line) so they stay easy
// to read and to extend. catalog-products.ts and catalog-posts.ts turn them into content.

/** Splits a table into rows of exactly `columns` trimmed cells; a malformed row throws at start. */
export function parseTable(table: string, columns: number): string[][] {
  return table
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const cells = line.split('|').map((cell) => cell.trim());
      if (cells.length !== columns)
        throw new Error(`Catalogue row has ${cells.length} cells, not ${columns}: ${line}`);
      return cells;
    });
}

/** Origins and blends, the service demo's three coffees first. */
export const ORIGIN_TABLE = `
# code | name | country | region | process | altitude | tasting notes | 250 g price (cents) | roasts (favourite first) | kind | story
HB  | House Blend | Brazil and Colombia | Cerrado Mineiro and Huila | Natural and washed | 1,100–1,800 m | chocolate, hazelnut, caramel | 890 | M D | Blends | Our everyday coffee since the roastery opened in Lyon: a round, sweet blend that forgives a hurried morning and shines in milk.
ETH | Ethiopia Yirgacheffe | Ethiopia | Gedeo zone, Yirgacheffe | Washed | 1,900–2,200 m | jasmine, lemon, bergamot | 1290 | L M | Single origin | Grown in garden plots by smallholders who deliver cherries to the Konga washing station, where it is fermented and dried on raised beds.
DEC | Decaf Colombia | Colombia | Huila | Swiss Water decaffeinated | 1,500–1,900 m | milk chocolate, red apple, brown sugar | 1050 | M D | Decaf | Decaffeinated with the Swiss Water process, with water only and no chemicals, so the evening cup still tastes of the farm.
KEN | Kenya Nyeri | Kenya | Nyeri, Mount Kenya slopes | Washed | 1,700–1,900 m | blackcurrant, grapefruit, tomato leaf | 1490 | L M | Single origin | From the Gatomboya cooperative, where cherries are sorted by hand and double-fermented before drying.
GUA | Guatemala Huehuetenango | Guatemala | Huehuetenango highlands | Washed | 1,600–2,000 m | cocoa, red apple, almond | 1190 | M L | Single origin | Dry winds from the Tehuantepec plain protect these high farms from frost and let the cherries ripen slowly.
BRA | Brazil Cerrado | Brazil | Cerrado Mineiro | Natural | 1,000–1,250 m | peanut, milk chocolate, dried fig | 950 | D M | Single origin | A flat, sunny plateau where whole cherries dry on patios, giving the heavy body that anchors a good espresso.
CRI | Costa Rica Tarrazú | Costa Rica | Tarrazú, San José | Honey | 1,500–1,900 m | honey, orange, panela | 1290 | L M | Single origin | Processed as a yellow honey: the skin is removed but part of the sticky mucilage stays on while the beans dry.
SUM | Sumatra Mandheling | Indonesia | North Sumatra, Lake Toba | Wet-hulled | 1,100–1,500 m | cedar, dark chocolate, spice | 1150 | D M | Single origin | Wet-hulled, the local giling basah method, which gives the famous earthy depth and very low acidity.
RWA | Rwanda Nyamasheke | Rwanda | Nyamasheke, Lake Kivu | Washed | 1,700–2,000 m | red berries, black tea, lime | 1350 | L M | Single origin | Grown on the steep hills above Lake Kivu and washed at a station run by a women-led cooperative.
PER | Peru Cajamarca | Peru | San Ignacio, Cajamarca | Washed, organic | 1,600–1,900 m | caramel, almond, mandarin | 1090 | M D | Single origin | Certified organic, from family farms that shade their trees with inga and banana plants.
HON | Honduras Santa Bárbara | Honduras | Santa Bárbara | Washed | 1,500–1,750 m | stone fruit, brown sugar, vanilla | 1190 | M L | Single origin | From the mountains around Lake Yojoa, a region that has become a quiet favourite of competition baristas.
PAN | Panama Boquete | Panama | Boquete, Chiriquí | Washed | 1,600–1,800 m | bergamot, peach, honeysuckle | 1890 | L | Single origin | A small lot from the cloud forests of Volcán Barú, picked in several passes so that only ripe cherries are kept.
BDI | Burundi Kayanza | Burundi | Kayanza | Washed | 1,800–2,000 m | cranberry, hibiscus, cane sugar | 1290 | L M | Single origin | Sorted twice, as cherries and again as parchment, to remove the defects that can hide in East African lots.
SLV | El Salvador Santa Ana | El Salvador | Santa Ana volcano | Natural | 1,400–1,700 m | toffee, plum, cocoa | 1150 | M D | Single origin | Bourbon trees, many of them old, growing on the volcanic soil of the Ilamatepec and dried as whole cherries.
MEX | Mexico Chiapas | Mexico | Sierra Madre de Chiapas | Washed, organic | 1,200–1,600 m | cocoa nib, walnut, orange peel | 990 | M D | Single origin | From a cooperative of indigenous growers who farm under native forest canopy near the Guatemalan border.
IND | India Monsooned Malabar | India | Malabar coast, Karnataka | Monsooned | 1,000–1,200 m | spice, pipe tobacco, dark cocoa | 1050 | D | Single origin | Exposed to the humid monsoon winds for months, as ships once were on the long voyage to Europe: low acidity, heavy body.
NIC | Nicaragua Jinotega | Nicaragua | Jinotega | Washed | 1,200–1,500 m | milk chocolate, red grape, praline | 1050 | M D | Single origin | Grown in the misty northern highlands, where most of the country’s coffee comes from.
PNG | Papua New Guinea Eastern Highlands | Papua New Guinea | Eastern Highlands | Washed | 1,500–1,800 m | tropical fruit, cedar, molasses | 1190 | M L | Single origin | Gathered from village gardens where coffee grows alongside sweet potatoes and bananas.
UGA | Uganda Rwenzori | Uganda | Rwenzori mountains | Natural | 1,600–2,200 m | strawberry, dark chocolate, red wine | 1150 | M L | Single origin | From the slopes of the “Mountains of the Moon”, dried as whole cherries on raised beds for a fruit-forward cup.
ESP | Espresso Lyonnais | Brazil, India and Ethiopia | Blend of three origins | Natural and washed | 1,000–2,000 m | dark chocolate, roasted almond, cherry | 990 | D M | Blends | Our take on the classic Lyon café espresso: dense, sweet and bitter-sweet, made to cut through milk.
`;

/** Brewing methods for the guides. */
export const METHOD_TABLE = `
# name | ratio | grind | water | time | tip
V60 | 15 g to 250 g of water | medium-fine, like table salt | 94 °C | 2:45 to 3:15 | Pour in slow spirals and keep the bed flat.
Chemex | 30 g to 500 g of water | medium-coarse, like coarse sand | 95 °C | 4:00 to 4:30 | Rinse the thick paper filter well: it tastes of paper otherwise.
AeroPress | 15 g to 220 g of water | fine to medium | 88 °C | 1:45 including the press | Use the inverted method if coffee drips through too early.
French press | 30 g to 500 g of water | coarse, like breadcrumbs | 95 °C | 4:00, then skim and wait five more minutes | Skim the foam before pressing for a cleaner cup.
moka pot | a full basket, levelled, and water up to the valve | fine, a little coarser than espresso | hot water from the kettle | until it starts to gurgle | Take it off the heat as soon as the flow turns blond.
home espresso machine | 18 g in, 36 g out | fine, adjusted shot by shot | 93 °C | 25 to 30 seconds | Change one thing at a time, starting with the grind.
cold brew jar | 100 g to 1 litre of cold water | coarse | fridge temperature | 14 to 16 hours | Dilute the concentrate one to one with water or milk.
Kalita Wave | 16 g to 260 g of water | medium | 94 °C | 3:00 to 3:30 | Pour in small pulses; the flat bed forgives uneven pours.
Clever Dripper | 18 g to 300 g of water | medium | 95 °C | 2:30 steep, then about a minute to drain | Add water first, then coffee, for an even drawdown.
cezve | 7 g to 70 g of water per cup | as fine as powder | from cold, over low heat | until the foam rises, about three minutes | Never let it boil over: lift it as the foam climbs.
siphon | 20 g to 300 g of water | medium | 92 °C in the upper chamber | 1:30 of contact time | Stir gently twice; too much stirring makes it bitter.
batch brewer | 60 g to 1 litre of water | medium-coarse | 94 °C | 5:00 to 6:00 for the full pot | Serve within 30 minutes, or move it to a thermal carafe.
`;

/** Drinks and dishes for the recipes. */
export const RECIPE_TABLE = `
# name | the coffee | what goes with it
Cappuccino | a double espresso | 120 ml of milk steamed to a thick, velvety foam
Flat white | a double ristretto | 100 ml of milk with a thin, glossy microfoam
Iced latte | a double espresso, cooled over ice | 150 ml of cold milk
Affogato | a single shot of hot espresso | a scoop of vanilla ice cream
Espresso tonic | a double espresso | 120 ml of cold tonic water over ice and a twist of orange
Cortado | a double espresso | an equal amount of warm milk
Mocha | a double espresso | 20 g of dark chocolate melted into 150 ml of steamed milk
Café bombón | a single espresso | 20 ml of sweetened condensed milk
Coffee granita | 300 ml of strong filter coffee with 40 g of sugar | whipped cream
Tiramisu | 250 ml of cold espresso | mascarpone, eggs and savoiardi biscuits
Cold brew lemonade | 100 ml of cold brew concentrate | lemonade and ice
Vietnamese iced coffee | a dark roast brewed in a phin filter | condensed milk and crushed ice
Coffee and cardamom buns | 60 ml of espresso in the filling | butter, brown sugar and ground cardamom
Spiced coffee syrup | 200 ml of strong coffee | 200 g of sugar, cinnamon and star anise
Coffee-rubbed roast vegetables | 2 tablespoons of finely ground dark roast | paprika, salt and olive oil
`;

/** One-off shop news. */
export const NEWS_TABLE = `
# title | text
Saturday tastings are back | Every Saturday at 11:00 we taste three coffees side by side at the roastery. It is free; just come by.
New roaster, same coffee | Our new 15 kg drum roaster is installed. We spent two weeks matching every profile so that your coffee tastes the same.
Welcome offer for new customers | New customers get 10% off their first order with the code WELCOME10.
Free shipping on every order this month | Use the code FREESHIP at checkout: shipping is on us, whatever the size of your order.
Holiday opening hours | The roastery shop closes from 24 December to 2 January. Orders placed during the holidays ship on 3 January.
We now ship to Switzerland | Orders to Switzerland take four to six working days; customs fees are included in the price.
Compostable bags | Our bags are now made of compostable film with a paper outer layer. The valve goes in the general waste.
Meet the team: the roasters | Claire and Malik roast every Monday and Thursday, starting at six in the morning, before the shop opens.
`;

/** The shop's pages: title | terms (comma-separated) | paragraphs separated by ' / '. */
export const PAGE_TABLE = `
Shipping and returns | Help | We roast on Mondays and Thursdays and ship every order within two business days of roasting. Delivery inside the EU takes three to five working days. / Shipping is free for orders over 40 euros; below that it costs 4.90 euros. The coupon FREESHIP waives it on any order. / Unopened bags can be returned within 30 days of delivery for a full refund. Opened coffee cannot be returned, but if a roast tastes wrong we replace it free of charge: just write to us with your order number.
About Northwind Coffee Roasters | About | Northwind Coffee Roasters is a small roastery in Lyon. We buy green coffee from farms and cooperatives we know, roast it in small batches on a 15 kg drum roaster, and sell it fresh. / Every coffee is sold as whole beans or ground for espresso, filter, French press or moka pot. We recommend whole beans: ground coffee loses most of its aroma within two weeks. / This shop is a demo: the coffees, customers and orders are made up.
Visit the roastery in Lyon | About, Events | The roastery shop in Lyon is open Tuesday to Saturday, 9:00 to 18:00. Come for a cup at the bar, buy beans straight off the cooling tray, or ask us anything about brewing. / Tastings are held every Saturday at 11:00. They are free, take about forty minutes, and you taste three coffees side by side.
`;
