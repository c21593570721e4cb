// Sliding blocks (Klotski on a box of any size), as a user would write it:
// breadth-first search over the list of pieces (a rectangle each: rows,
// columns, where it stands), each state known by its board drawn with one
// character per shape (so pieces of one shape are alike), kept in a hash
// set of strings. Input: the number of boards, then for each a line
// `rows cols goal_row goal_col` and its rows (`.` empty, a letter per
// piece, `B` the large square). Prints the fewest one-cell moves until `B`
// has its top left cell at the goal (from 0), or "unsolvable".
#include <iostream>
#include <queue>
#include <string>
#include <unordered_set>
#include <vector>
using namespace std;

int H, W;
struct Piece { int h, w, r, c; bool big; };

string key(const vector<Piece> &ps) {
    string k(H * W, '.');
    for (auto &p : ps)
        for (int y = 0; y < p.h; y++)
            for (int x = 0; x < p.w; x++) k[(p.r + y) * W + p.c + x] = char('0' + p.h * 3 + p.w);
    return k;
}

int main() {
    int n;
    cin >> n;
    while (n--) {
        int gr, gc;
        cin >> H >> W >> gr >> gc;
        vector<string> g(H);
        for (auto &row : g) cin >> row;
        vector<Piece> ps;
        string seenl;
        for (int r = 0; r < H; r++)
            for (int c = 0; c < W; c++) {
                char ch = g[r][c];
                if (ch == '.' || seenl.find(ch) != string::npos) continue;
                seenl += ch;
                int h = 0, w = 0;
                while (r + h < H && g[r + h][c] == ch) h++;
                while (c + w < W && g[r][c + w] == ch) w++;
                ps.push_back({h, w, r, c, ch == 'B'});
            }
        unordered_set<string> seen{key(ps)};
        queue<vector<Piece>> q;
        q.push(ps);
        long depth = 0, answer = -1;
        int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        while (!q.empty() && answer < 0) {
            for (size_t level = q.size(); level > 0; level--) {
                auto s = q.front();
                q.pop();
                bool done = false;
                for (auto &p : s) done |= p.big && p.r == gr && p.c == gc;
                if (done) { answer = depth; break; }
                string board = key(s);
                for (size_t i = 0; i < s.size(); i++)
                    for (int d = 0; d < 4; d++) {
                        Piece p = s[i];
                        int nr = p.r + dr[d], nc = p.c + dc[d];
                        if (nr < 0 || nc < 0 || nr + p.h > H || nc + p.w > W) continue;
                        bool ok = true;
                        for (int y = 0; y < p.h && ok; y++)
                            for (int x = 0; x < p.w && ok; x++) {
                                int r = nr + y, c = nc + x;
                                bool mine = r >= p.r && r < p.r + p.h && c >= p.c && c < p.c + p.w;
                                ok = mine || board[r * W + c] == '.';
                            }
                        if (!ok) continue;
                        auto t = s;
                        t[i].r = nr, t[i].c = nc;
                        if (seen.insert(key(t)).second) q.push(t);
                    }
            }
            depth++;
        }
        if (answer < 0) cout << "unsolvable\n";
        else cout << answer << "\n";
    }
}
