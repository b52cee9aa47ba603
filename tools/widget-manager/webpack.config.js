// `make widget-manager` (npm run build): one file, book/_assets/vendor/widget-manager/manager.js,
// its CSS inside (injected when it runs), no chunks loaded later.
const path = require('path');

module.exports = {
  entry: './src/index.js',
  output: {
    path: path.resolve(__dirname, '../../book/_assets/vendor/widget-manager'),
    filename: 'manager.js',
    library: { name: 'bookWidgetManager', type: 'window' },
    clean: false,
  },
  module: {
    rules: [{ test: /\.css$/, use: ['style-loader', 'css-loader'] }],
  },
  optimization: { splitChunks: false },
  performance: { hints: false },
  devtool: false,
};
