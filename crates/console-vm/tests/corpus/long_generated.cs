// Generated: a long script in the style of a game's server scripts (about 5,000 lines).

datablock ItemData(Item0Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_0.dts";
   mass = 1;
   elasticity = 0.1;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 0";
   rotate = false;
};

datablock ItemData(Item1Data : Item0Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_1.dts";
   mass = 2;
   elasticity = 0.2;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 1";
   rotate = true;
};

datablock ItemData(Item2Data : Item1Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_2.dts";
   mass = 3;
   elasticity = 0.3;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 2";
   rotate = false;
};

datablock ItemData(Item3Data : Item2Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_3.dts";
   mass = 4;
   elasticity = 0.4;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 3";
   rotate = true;
};

datablock ItemData(Item4Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_4.dts";
   mass = 5;
   elasticity = 0.5;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 4";
   rotate = false;
};

datablock ItemData(Item5Data : Item4Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_5.dts";
   mass = 6;
   elasticity = 0.6;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 5";
   rotate = true;
};

datablock ItemData(Item6Data : Item5Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_6.dts";
   mass = 7;
   elasticity = 0.7;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 6";
   rotate = false;
};

datablock ItemData(Item7Data : Item6Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_7.dts";
   mass = 1;
   elasticity = 0.8;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 7";
   rotate = true;
};

datablock ItemData(Item8Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_8.dts";
   mass = 2;
   elasticity = 0.9;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 8";
   rotate = false;
};

datablock ItemData(Item9Data : Item8Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_9.dts";
   mass = 3;
   elasticity = 0.1;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 9";
   rotate = true;
};

datablock ItemData(Item10Data : Item9Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_10.dts";
   mass = 4;
   elasticity = 0.2;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 10";
   rotate = false;
};

datablock ItemData(Item11Data : Item10Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_11.dts";
   mass = 5;
   elasticity = 0.3;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 11";
   rotate = true;
};

datablock ItemData(Item12Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_12.dts";
   mass = 6;
   elasticity = 0.4;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 12";
   rotate = false;
};

datablock ItemData(Item13Data : Item12Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_13.dts";
   mass = 7;
   elasticity = 0.5;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 13";
   rotate = true;
};

datablock ItemData(Item14Data : Item13Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_14.dts";
   mass = 1;
   elasticity = 0.6;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 14";
   rotate = false;
};

datablock ItemData(Item15Data : Item14Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_15.dts";
   mass = 2;
   elasticity = 0.7;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 15";
   rotate = true;
};

datablock ItemData(Item16Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_16.dts";
   mass = 3;
   elasticity = 0.8;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 16";
   rotate = false;
};

datablock ItemData(Item17Data : Item16Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_17.dts";
   mass = 4;
   elasticity = 0.9;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 17";
   rotate = true;
};

datablock ItemData(Item18Data : Item17Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_18.dts";
   mass = 5;
   elasticity = 0.1;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 18";
   rotate = false;
};

datablock ItemData(Item19Data : Item18Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_19.dts";
   mass = 6;
   elasticity = 0.2;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 19";
   rotate = true;
};

datablock ItemData(Item20Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_20.dts";
   mass = 7;
   elasticity = 0.3;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 20";
   rotate = false;
};

datablock ItemData(Item21Data : Item20Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_21.dts";
   mass = 1;
   elasticity = 0.4;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 21";
   rotate = true;
};

datablock ItemData(Item22Data : Item21Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_22.dts";
   mass = 2;
   elasticity = 0.5;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 22";
   rotate = false;
};

datablock ItemData(Item23Data : Item22Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_23.dts";
   mass = 3;
   elasticity = 0.6;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 23";
   rotate = true;
};

datablock ItemData(Item24Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_24.dts";
   mass = 4;
   elasticity = 0.7;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 24";
   rotate = false;
};

datablock ItemData(Item25Data : Item24Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_25.dts";
   mass = 5;
   elasticity = 0.8;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 25";
   rotate = true;
};

datablock ItemData(Item26Data : Item25Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_26.dts";
   mass = 6;
   elasticity = 0.9;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 26";
   rotate = false;
};

datablock ItemData(Item27Data : Item26Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_27.dts";
   mass = 7;
   elasticity = 0.1;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 27";
   rotate = true;
};

datablock ItemData(Item28Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_28.dts";
   mass = 1;
   elasticity = 0.2;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 28";
   rotate = false;
};

datablock ItemData(Item29Data : Item28Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_29.dts";
   mass = 2;
   elasticity = 0.3;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 29";
   rotate = true;
};

datablock ItemData(Item30Data : Item29Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_30.dts";
   mass = 3;
   elasticity = 0.4;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 30";
   rotate = false;
};

datablock ItemData(Item31Data : Item30Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_31.dts";
   mass = 4;
   elasticity = 0.5;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 31";
   rotate = true;
};

datablock ItemData(Item32Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_32.dts";
   mass = 5;
   elasticity = 0.6;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 32";
   rotate = false;
};

datablock ItemData(Item33Data : Item32Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_33.dts";
   mass = 6;
   elasticity = 0.7;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 33";
   rotate = true;
};

datablock ItemData(Item34Data : Item33Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_34.dts";
   mass = 7;
   elasticity = 0.8;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 34";
   rotate = false;
};

datablock ItemData(Item35Data : Item34Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_35.dts";
   mass = 1;
   elasticity = 0.9;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 35";
   rotate = true;
};

datablock ItemData(Item36Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_36.dts";
   mass = 2;
   elasticity = 0.1;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 36";
   rotate = false;
};

datablock ItemData(Item37Data : Item36Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_37.dts";
   mass = 3;
   elasticity = 0.2;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 37";
   rotate = true;
};

datablock ItemData(Item38Data : Item37Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_38.dts";
   mass = 4;
   elasticity = 0.3;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 38";
   rotate = false;
};

datablock ItemData(Item39Data : Item38Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_39.dts";
   mass = 5;
   elasticity = 0.4;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 39";
   rotate = true;
};

datablock ItemData(Item40Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_40.dts";
   mass = 6;
   elasticity = 0.5;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 40";
   rotate = false;
};

datablock ItemData(Item41Data : Item40Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_41.dts";
   mass = 7;
   elasticity = 0.6;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 41";
   rotate = true;
};

datablock ItemData(Item42Data : Item41Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_42.dts";
   mass = 1;
   elasticity = 0.7;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 42";
   rotate = false;
};

datablock ItemData(Item43Data : Item42Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_43.dts";
   mass = 2;
   elasticity = 0.8;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 43";
   rotate = true;
};

datablock ItemData(Item44Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_44.dts";
   mass = 3;
   elasticity = 0.9;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 44";
   rotate = false;
};

datablock ItemData(Item45Data : Item44Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_45.dts";
   mass = 4;
   elasticity = 0.1;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 45";
   rotate = true;
};

datablock ItemData(Item46Data : Item45Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_46.dts";
   mass = 5;
   elasticity = 0.2;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 46";
   rotate = false;
};

datablock ItemData(Item47Data : Item46Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_47.dts";
   mass = 6;
   elasticity = 0.3;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 47";
   rotate = true;
};

datablock ItemData(Item48Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_48.dts";
   mass = 7;
   elasticity = 0.4;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 48";
   rotate = false;
};

datablock ItemData(Item49Data : Item48Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_49.dts";
   mass = 1;
   elasticity = 0.5;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 49";
   rotate = true;
};

datablock ItemData(Item50Data : Item49Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_50.dts";
   mass = 2;
   elasticity = 0.6;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 50";
   rotate = false;
};

datablock ItemData(Item51Data : Item50Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_51.dts";
   mass = 3;
   elasticity = 0.7;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 51";
   rotate = true;
};

datablock ItemData(Item52Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_52.dts";
   mass = 4;
   elasticity = 0.8;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 52";
   rotate = false;
};

datablock ItemData(Item53Data : Item52Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_53.dts";
   mass = 5;
   elasticity = 0.9;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 53";
   rotate = true;
};

datablock ItemData(Item54Data : Item53Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_54.dts";
   mass = 6;
   elasticity = 0.1;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 54";
   rotate = false;
};

datablock ItemData(Item55Data : Item54Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_55.dts";
   mass = 7;
   elasticity = 0.2;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 55";
   rotate = true;
};

datablock ItemData(Item56Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_56.dts";
   mass = 1;
   elasticity = 0.3;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 56";
   rotate = false;
};

datablock ItemData(Item57Data : Item56Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_57.dts";
   mass = 2;
   elasticity = 0.4;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 57";
   rotate = true;
};

datablock ItemData(Item58Data : Item57Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_58.dts";
   mass = 3;
   elasticity = 0.5;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 58";
   rotate = false;
};

datablock ItemData(Item59Data : Item58Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_59.dts";
   mass = 4;
   elasticity = 0.6;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 59";
   rotate = true;
};

datablock ItemData(Item60Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_60.dts";
   mass = 5;
   elasticity = 0.7;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 60";
   rotate = false;
};

datablock ItemData(Item61Data : Item60Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_61.dts";
   mass = 6;
   elasticity = 0.8;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 61";
   rotate = true;
};

datablock ItemData(Item62Data : Item61Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_62.dts";
   mass = 7;
   elasticity = 0.9;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 62";
   rotate = false;
};

datablock ItemData(Item63Data : Item62Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_63.dts";
   mass = 1;
   elasticity = 0.1;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 63";
   rotate = true;
};

datablock ItemData(Item64Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_64.dts";
   mass = 2;
   elasticity = 0.2;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 64";
   rotate = false;
};

datablock ItemData(Item65Data : Item64Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_65.dts";
   mass = 3;
   elasticity = 0.3;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 65";
   rotate = true;
};

datablock ItemData(Item66Data : Item65Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_66.dts";
   mass = 4;
   elasticity = 0.4;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 66";
   rotate = false;
};

datablock ItemData(Item67Data : Item66Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_67.dts";
   mass = 5;
   elasticity = 0.5;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 67";
   rotate = true;
};

datablock ItemData(Item68Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_68.dts";
   mass = 6;
   elasticity = 0.6;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 68";
   rotate = false;
};

datablock ItemData(Item69Data : Item68Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_69.dts";
   mass = 7;
   elasticity = 0.7;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 69";
   rotate = true;
};

datablock ItemData(Item70Data : Item69Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_70.dts";
   mass = 1;
   elasticity = 0.8;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 70";
   rotate = false;
};

datablock ItemData(Item71Data : Item70Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_71.dts";
   mass = 2;
   elasticity = 0.9;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 71";
   rotate = true;
};

datablock ItemData(Item72Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_72.dts";
   mass = 3;
   elasticity = 0.1;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 72";
   rotate = false;
};

datablock ItemData(Item73Data : Item72Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_73.dts";
   mass = 4;
   elasticity = 0.2;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 73";
   rotate = true;
};

datablock ItemData(Item74Data : Item73Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_74.dts";
   mass = 5;
   elasticity = 0.3;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 74";
   rotate = false;
};

datablock ItemData(Item75Data : Item74Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_75.dts";
   mass = 6;
   elasticity = 0.4;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 75";
   rotate = true;
};

datablock ItemData(Item76Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_76.dts";
   mass = 7;
   elasticity = 0.5;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 76";
   rotate = false;
};

datablock ItemData(Item77Data : Item76Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_77.dts";
   mass = 1;
   elasticity = 0.6;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 77";
   rotate = true;
};

datablock ItemData(Item78Data : Item77Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_78.dts";
   mass = 2;
   elasticity = 0.7;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 78";
   rotate = false;
};

datablock ItemData(Item79Data : Item78Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_79.dts";
   mass = 3;
   elasticity = 0.8;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 79";
   rotate = true;
};

datablock ItemData(Item80Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_80.dts";
   mass = 4;
   elasticity = 0.9;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 80";
   rotate = false;
};

datablock ItemData(Item81Data : Item80Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_81.dts";
   mass = 5;
   elasticity = 0.1;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 81";
   rotate = true;
};

datablock ItemData(Item82Data : Item81Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_82.dts";
   mass = 6;
   elasticity = 0.2;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 82";
   rotate = false;
};

datablock ItemData(Item83Data : Item82Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_83.dts";
   mass = 7;
   elasticity = 0.3;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 83";
   rotate = true;
};

datablock ItemData(Item84Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_84.dts";
   mass = 1;
   elasticity = 0.4;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 84";
   rotate = false;
};

datablock ItemData(Item85Data : Item84Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_85.dts";
   mass = 2;
   elasticity = 0.5;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 85";
   rotate = true;
};

datablock ItemData(Item86Data : Item85Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_86.dts";
   mass = 3;
   elasticity = 0.6;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 86";
   rotate = false;
};

datablock ItemData(Item87Data : Item86Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_87.dts";
   mass = 4;
   elasticity = 0.7;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 87";
   rotate = true;
};

datablock ItemData(Item88Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_88.dts";
   mass = 5;
   elasticity = 0.8;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 88";
   rotate = false;
};

datablock ItemData(Item89Data : Item88Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_89.dts";
   mass = 6;
   elasticity = 0.9;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 89";
   rotate = true;
};

datablock ItemData(Item90Data : Item89Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_90.dts";
   mass = 7;
   elasticity = 0.1;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 90";
   rotate = false;
};

datablock ItemData(Item91Data : Item90Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_91.dts";
   mass = 1;
   elasticity = 0.2;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 91";
   rotate = true;
};

datablock ItemData(Item92Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_92.dts";
   mass = 2;
   elasticity = 0.3;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 92";
   rotate = false;
};

datablock ItemData(Item93Data : Item92Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_93.dts";
   mass = 3;
   elasticity = 0.4;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 93";
   rotate = true;
};

datablock ItemData(Item94Data : Item93Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_94.dts";
   mass = 4;
   elasticity = 0.5;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 94";
   rotate = false;
};

datablock ItemData(Item95Data : Item94Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_95.dts";
   mass = 5;
   elasticity = 0.6;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 95";
   rotate = true;
};

datablock ItemData(Item96Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_96.dts";
   mass = 6;
   elasticity = 0.7;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 96";
   rotate = false;
};

datablock ItemData(Item97Data : Item96Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_97.dts";
   mass = 7;
   elasticity = 0.8;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 97";
   rotate = true;
};

datablock ItemData(Item98Data : Item97Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_98.dts";
   mass = 1;
   elasticity = 0.9;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 98";
   rotate = false;
};

datablock ItemData(Item99Data : Item98Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_99.dts";
   mass = 2;
   elasticity = 0.1;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 99";
   rotate = true;
};

datablock ItemData(Item100Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_100.dts";
   mass = 3;
   elasticity = 0.2;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 100";
   rotate = false;
};

datablock ItemData(Item101Data : Item100Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_101.dts";
   mass = 4;
   elasticity = 0.3;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 101";
   rotate = true;
};

datablock ItemData(Item102Data : Item101Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_102.dts";
   mass = 5;
   elasticity = 0.4;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 102";
   rotate = false;
};

datablock ItemData(Item103Data : Item102Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_103.dts";
   mass = 6;
   elasticity = 0.5;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 103";
   rotate = true;
};

datablock ItemData(Item104Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_104.dts";
   mass = 7;
   elasticity = 0.6;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 104";
   rotate = false;
};

datablock ItemData(Item105Data : Item104Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_105.dts";
   mass = 1;
   elasticity = 0.7;
   friction = 0.5;
   pickupRadius = 1;
   pickUpName = "an item number 105";
   rotate = true;
};

datablock ItemData(Item106Data : Item105Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_106.dts";
   mass = 2;
   elasticity = 0.8;
   friction = 0.6;
   pickupRadius = 2;
   pickUpName = "an item number 106";
   rotate = false;
};

datablock ItemData(Item107Data : Item106Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_107.dts";
   mass = 3;
   elasticity = 0.9;
   friction = 0.7;
   pickupRadius = 3;
   pickUpName = "an item number 107";
   rotate = true;
};

datablock ItemData(Item108Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_108.dts";
   mass = 4;
   elasticity = 0.1;
   friction = 0.8;
   pickupRadius = 1;
   pickUpName = "an item number 108";
   rotate = false;
};

datablock ItemData(Item109Data : Item108Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_109.dts";
   mass = 5;
   elasticity = 0.2;
   friction = 0.9;
   pickupRadius = 2;
   pickUpName = "an item number 109";
   rotate = true;
};

datablock ItemData(Item110Data : Item109Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_110.dts";
   mass = 6;
   elasticity = 0.3;
   friction = 0.5;
   pickupRadius = 3;
   pickUpName = "an item number 110";
   rotate = false;
};

datablock ItemData(Item111Data : Item110Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_111.dts";
   mass = 7;
   elasticity = 0.4;
   friction = 0.6;
   pickupRadius = 1;
   pickUpName = "an item number 111";
   rotate = true;
};

datablock ItemData(Item112Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_112.dts";
   mass = 1;
   elasticity = 0.5;
   friction = 0.7;
   pickupRadius = 2;
   pickUpName = "an item number 112";
   rotate = false;
};

datablock ItemData(Item113Data : Item112Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_113.dts";
   mass = 2;
   elasticity = 0.6;
   friction = 0.8;
   pickupRadius = 3;
   pickUpName = "an item number 113";
   rotate = true;
};

datablock ItemData(Item114Data : Item113Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_114.dts";
   mass = 3;
   elasticity = 0.7;
   friction = 0.9;
   pickupRadius = 1;
   pickUpName = "an item number 114";
   rotate = false;
};

datablock ItemData(Item115Data : Item114Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_115.dts";
   mass = 4;
   elasticity = 0.8;
   friction = 0.5;
   pickupRadius = 2;
   pickUpName = "an item number 115";
   rotate = true;
};

datablock ItemData(Item116Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_116.dts";
   mass = 5;
   elasticity = 0.9;
   friction = 0.6;
   pickupRadius = 3;
   pickUpName = "an item number 116";
   rotate = false;
};

datablock ItemData(Item117Data : Item116Data)
{
   className = Weapon;
   catagory = "Misc";
   shapeFile = "item_117.dts";
   mass = 6;
   elasticity = 0.1;
   friction = 0.7;
   pickupRadius = 1;
   pickUpName = "an item number 117";
   rotate = true;
};

datablock ItemData(Item118Data : Item117Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_118.dts";
   mass = 7;
   elasticity = 0.2;
   friction = 0.8;
   pickupRadius = 2;
   pickUpName = "an item number 118";
   rotate = false;
};

datablock ItemData(Item119Data : Item118Data)
{
   className = Pack;
   catagory = "Misc";
   shapeFile = "item_119.dts";
   mass = 1;
   elasticity = 0.3;
   friction = 0.9;
   pickupRadius = 3;
   pickUpName = "an item number 119";
   rotate = true;
};

function Item0Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[0, %count] = %w;
   return %count - 1;
}

function helper0(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h0" SPC %r TAB getWord("a b c d", 0 % 4);
   return %s;
}

function Item1Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[1, %count] = %w;
   return %count - 1;
}

function helper1(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h1" SPC %r TAB getWord("a b c d", 1 % 4);
   return %s;
}

function Item2Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[2, %count] = %w;
   return %count - 1;
}

function helper2(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h2" SPC %r TAB getWord("a b c d", 2 % 4);
   return %s;
}

function Item3Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[3, %count] = %w;
   return %count - 1;
}

function helper3(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h3" SPC %r TAB getWord("a b c d", 3 % 4);
   return %s;
}

function Item4Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[4, %count] = %w;
   return %count - 1;
}

function helper4(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h4" SPC %r TAB getWord("a b c d", 4 % 4);
   return %s;
}

function Item5Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[5, %count] = %w;
   return %count - 1;
}

function helper5(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h5" SPC %r TAB getWord("a b c d", 5 % 4);
   return %s;
}

function Item6Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[6, %count] = %w;
   return %count - 1;
}

function helper6(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h6" SPC %r TAB getWord("a b c d", 6 % 4);
   return %s;
}

function Item7Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[7, %count] = %w;
   return %count - 1;
}

function helper7(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h7" SPC %r TAB getWord("a b c d", 7 % 4);
   return %s;
}

function Item8Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[8, %count] = %w;
   return %count - 1;
}

function helper8(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h8" SPC %r TAB getWord("a b c d", 8 % 4);
   return %s;
}

function Item9Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[9, %count] = %w;
   return %count - 1;
}

function helper9(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h9" SPC %r TAB getWord("a b c d", 9 % 4);
   return %s;
}

function Item10Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[10, %count] = %w;
   return %count - 1;
}

function helper10(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h10" SPC %r TAB getWord("a b c d", 10 % 4);
   return %s;
}

function Item11Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[11, %count] = %w;
   return %count - 1;
}

function helper11(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h11" SPC %r TAB getWord("a b c d", 11 % 4);
   return %s;
}

function Item12Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[12, %count] = %w;
   return %count - 1;
}

function helper12(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h12" SPC %r TAB getWord("a b c d", 12 % 4);
   return %s;
}

function Item13Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[13, %count] = %w;
   return %count - 1;
}

function helper13(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h13" SPC %r TAB getWord("a b c d", 13 % 4);
   return %s;
}

function Item14Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[14, %count] = %w;
   return %count - 1;
}

function helper14(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h14" SPC %r TAB getWord("a b c d", 14 % 4);
   return %s;
}

function Item15Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[15, %count] = %w;
   return %count - 1;
}

function helper15(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h15" SPC %r TAB getWord("a b c d", 15 % 4);
   return %s;
}

function Item16Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[16, %count] = %w;
   return %count - 1;
}

function helper16(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h16" SPC %r TAB getWord("a b c d", 16 % 4);
   return %s;
}

function Item17Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[17, %count] = %w;
   return %count - 1;
}

function helper17(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h17" SPC %r TAB getWord("a b c d", 17 % 4);
   return %s;
}

function Item18Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[18, %count] = %w;
   return %count - 1;
}

function helper18(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h18" SPC %r TAB getWord("a b c d", 18 % 4);
   return %s;
}

function Item19Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[19, %count] = %w;
   return %count - 1;
}

function helper19(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h19" SPC %r TAB getWord("a b c d", 19 % 4);
   return %s;
}

function Item20Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[20, %count] = %w;
   return %count - 1;
}

function helper20(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h20" SPC %r TAB getWord("a b c d", 20 % 4);
   return %s;
}

function Item21Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[21, %count] = %w;
   return %count - 1;
}

function helper21(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h21" SPC %r TAB getWord("a b c d", 21 % 4);
   return %s;
}

function Item22Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[22, %count] = %w;
   return %count - 1;
}

function helper22(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h22" SPC %r TAB getWord("a b c d", 22 % 4);
   return %s;
}

function Item23Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[23, %count] = %w;
   return %count - 1;
}

function helper23(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h23" SPC %r TAB getWord("a b c d", 23 % 4);
   return %s;
}

function Item24Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[24, %count] = %w;
   return %count - 1;
}

function helper24(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h24" SPC %r TAB getWord("a b c d", 24 % 4);
   return %s;
}

function Item25Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[25, %count] = %w;
   return %count - 1;
}

function helper25(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h25" SPC %r TAB getWord("a b c d", 25 % 4);
   return %s;
}

function Item26Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[26, %count] = %w;
   return %count - 1;
}

function helper26(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h26" SPC %r TAB getWord("a b c d", 26 % 4);
   return %s;
}

function Item27Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[27, %count] = %w;
   return %count - 1;
}

function helper27(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h27" SPC %r TAB getWord("a b c d", 27 % 4);
   return %s;
}

function Item28Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[28, %count] = %w;
   return %count - 1;
}

function helper28(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h28" SPC %r TAB getWord("a b c d", 28 % 4);
   return %s;
}

function Item29Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[29, %count] = %w;
   return %count - 1;
}

function helper29(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h29" SPC %r TAB getWord("a b c d", 29 % 4);
   return %s;
}

function Item30Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[30, %count] = %w;
   return %count - 1;
}

function helper30(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h30" SPC %r TAB getWord("a b c d", 30 % 4);
   return %s;
}

function Item31Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[31, %count] = %w;
   return %count - 1;
}

function helper31(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h31" SPC %r TAB getWord("a b c d", 31 % 4);
   return %s;
}

function Item32Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[32, %count] = %w;
   return %count - 1;
}

function helper32(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h32" SPC %r TAB getWord("a b c d", 32 % 4);
   return %s;
}

function Item33Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[33, %count] = %w;
   return %count - 1;
}

function helper33(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h33" SPC %r TAB getWord("a b c d", 33 % 4);
   return %s;
}

function Item34Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[34, %count] = %w;
   return %count - 1;
}

function helper34(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h34" SPC %r TAB getWord("a b c d", 34 % 4);
   return %s;
}

function Item35Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[35, %count] = %w;
   return %count - 1;
}

function helper35(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h35" SPC %r TAB getWord("a b c d", 35 % 4);
   return %s;
}

function Item36Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[36, %count] = %w;
   return %count - 1;
}

function helper36(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h36" SPC %r TAB getWord("a b c d", 36 % 4);
   return %s;
}

function Item37Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[37, %count] = %w;
   return %count - 1;
}

function helper37(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h37" SPC %r TAB getWord("a b c d", 37 % 4);
   return %s;
}

function Item38Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[38, %count] = %w;
   return %count - 1;
}

function helper38(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h38" SPC %r TAB getWord("a b c d", 38 % 4);
   return %s;
}

function Item39Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[39, %count] = %w;
   return %count - 1;
}

function helper39(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h39" SPC %r TAB getWord("a b c d", 39 % 4);
   return %s;
}

function Item40Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[40, %count] = %w;
   return %count - 1;
}

function helper40(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h40" SPC %r TAB getWord("a b c d", 40 % 4);
   return %s;
}

function Item41Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[41, %count] = %w;
   return %count - 1;
}

function helper41(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h41" SPC %r TAB getWord("a b c d", 41 % 4);
   return %s;
}

function Item42Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[42, %count] = %w;
   return %count - 1;
}

function helper42(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h42" SPC %r TAB getWord("a b c d", 42 % 4);
   return %s;
}

function Item43Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[43, %count] = %w;
   return %count - 1;
}

function helper43(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h43" SPC %r TAB getWord("a b c d", 43 % 4);
   return %s;
}

function Item44Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[44, %count] = %w;
   return %count - 1;
}

function helper44(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h44" SPC %r TAB getWord("a b c d", 44 % 4);
   return %s;
}

function Item45Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[45, %count] = %w;
   return %count - 1;
}

function helper45(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h45" SPC %r TAB getWord("a b c d", 45 % 4);
   return %s;
}

function Item46Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[46, %count] = %w;
   return %count - 1;
}

function helper46(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h46" SPC %r TAB getWord("a b c d", 46 % 4);
   return %s;
}

function Item47Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[47, %count] = %w;
   return %count - 1;
}

function helper47(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h47" SPC %r TAB getWord("a b c d", 47 % 4);
   return %s;
}

function Item48Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[48, %count] = %w;
   return %count - 1;
}

function helper48(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h48" SPC %r TAB getWord("a b c d", 48 % 4);
   return %s;
}

function Item49Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[49, %count] = %w;
   return %count - 1;
}

function helper49(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h49" SPC %r TAB getWord("a b c d", 49 % 4);
   return %s;
}

function Item50Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[50, %count] = %w;
   return %count - 1;
}

function helper50(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h50" SPC %r TAB getWord("a b c d", 50 % 4);
   return %s;
}

function Item51Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[51, %count] = %w;
   return %count - 1;
}

function helper51(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h51" SPC %r TAB getWord("a b c d", 51 % 4);
   return %s;
}

function Item52Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[52, %count] = %w;
   return %count - 1;
}

function helper52(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h52" SPC %r TAB getWord("a b c d", 52 % 4);
   return %s;
}

function Item53Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[53, %count] = %w;
   return %count - 1;
}

function helper53(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h53" SPC %r TAB getWord("a b c d", 53 % 4);
   return %s;
}

function Item54Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[54, %count] = %w;
   return %count - 1;
}

function helper54(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h54" SPC %r TAB getWord("a b c d", 54 % 4);
   return %s;
}

function Item55Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[55, %count] = %w;
   return %count - 1;
}

function helper55(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h55" SPC %r TAB getWord("a b c d", 55 % 4);
   return %s;
}

function Item56Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[56, %count] = %w;
   return %count - 1;
}

function helper56(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h56" SPC %r TAB getWord("a b c d", 56 % 4);
   return %s;
}

function Item57Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[57, %count] = %w;
   return %count - 1;
}

function helper57(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h57" SPC %r TAB getWord("a b c d", 57 % 4);
   return %s;
}

function Item58Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[58, %count] = %w;
   return %count - 1;
}

function helper58(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h58" SPC %r TAB getWord("a b c d", 58 % 4);
   return %s;
}

function Item59Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[59, %count] = %w;
   return %count - 1;
}

function helper59(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h59" SPC %r TAB getWord("a b c d", 59 % 4);
   return %s;
}

function Item60Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[60, %count] = %w;
   return %count - 1;
}

function helper60(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h60" SPC %r TAB getWord("a b c d", 60 % 4);
   return %s;
}

function Item61Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[61, %count] = %w;
   return %count - 1;
}

function helper61(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h61" SPC %r TAB getWord("a b c d", 61 % 4);
   return %s;
}

function Item62Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[62, %count] = %w;
   return %count - 1;
}

function helper62(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h62" SPC %r TAB getWord("a b c d", 62 % 4);
   return %s;
}

function Item63Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[63, %count] = %w;
   return %count - 1;
}

function helper63(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h63" SPC %r TAB getWord("a b c d", 63 % 4);
   return %s;
}

function Item64Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[64, %count] = %w;
   return %count - 1;
}

function helper64(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h64" SPC %r TAB getWord("a b c d", 64 % 4);
   return %s;
}

function Item65Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[65, %count] = %w;
   return %count - 1;
}

function helper65(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h65" SPC %r TAB getWord("a b c d", 65 % 4);
   return %s;
}

function Item66Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[66, %count] = %w;
   return %count - 1;
}

function helper66(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h66" SPC %r TAB getWord("a b c d", 66 % 4);
   return %s;
}

function Item67Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[67, %count] = %w;
   return %count - 1;
}

function helper67(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h67" SPC %r TAB getWord("a b c d", 67 % 4);
   return %s;
}

function Item68Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[68, %count] = %w;
   return %count - 1;
}

function helper68(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h68" SPC %r TAB getWord("a b c d", 68 % 4);
   return %s;
}

function Item69Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[69, %count] = %w;
   return %count - 1;
}

function helper69(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h69" SPC %r TAB getWord("a b c d", 69 % 4);
   return %s;
}

function Item70Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[70, %count] = %w;
   return %count - 1;
}

function helper70(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h70" SPC %r TAB getWord("a b c d", 70 % 4);
   return %s;
}

function Item71Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[71, %count] = %w;
   return %count - 1;
}

function helper71(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h71" SPC %r TAB getWord("a b c d", 71 % 4);
   return %s;
}

function Item72Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[72, %count] = %w;
   return %count - 1;
}

function helper72(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h72" SPC %r TAB getWord("a b c d", 72 % 4);
   return %s;
}

function Item73Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[73, %count] = %w;
   return %count - 1;
}

function helper73(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h73" SPC %r TAB getWord("a b c d", 73 % 4);
   return %s;
}

function Item74Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[74, %count] = %w;
   return %count - 1;
}

function helper74(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h74" SPC %r TAB getWord("a b c d", 74 % 4);
   return %s;
}

function Item75Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[75, %count] = %w;
   return %count - 1;
}

function helper75(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h75" SPC %r TAB getWord("a b c d", 75 % 4);
   return %s;
}

function Item76Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[76, %count] = %w;
   return %count - 1;
}

function helper76(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h76" SPC %r TAB getWord("a b c d", 76 % 4);
   return %s;
}

function Item77Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[77, %count] = %w;
   return %count - 1;
}

function helper77(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h77" SPC %r TAB getWord("a b c d", 77 % 4);
   return %s;
}

function Item78Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[78, %count] = %w;
   return %count - 1;
}

function helper78(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h78" SPC %r TAB getWord("a b c d", 78 % 4);
   return %s;
}

function Item79Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[79, %count] = %w;
   return %count - 1;
}

function helper79(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h79" SPC %r TAB getWord("a b c d", 79 % 4);
   return %s;
}

function Item80Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[80, %count] = %w;
   return %count - 1;
}

function helper80(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h80" SPC %r TAB getWord("a b c d", 80 % 4);
   return %s;
}

function Item81Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[81, %count] = %w;
   return %count - 1;
}

function helper81(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h81" SPC %r TAB getWord("a b c d", 81 % 4);
   return %s;
}

function Item82Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[82, %count] = %w;
   return %count - 1;
}

function helper82(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h82" SPC %r TAB getWord("a b c d", 82 % 4);
   return %s;
}

function Item83Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[83, %count] = %w;
   return %count - 1;
}

function helper83(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h83" SPC %r TAB getWord("a b c d", 83 % 4);
   return %s;
}

function Item84Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[84, %count] = %w;
   return %count - 1;
}

function helper84(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h84" SPC %r TAB getWord("a b c d", 84 % 4);
   return %s;
}

function Item85Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[85, %count] = %w;
   return %count - 1;
}

function helper85(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h85" SPC %r TAB getWord("a b c d", 85 % 4);
   return %s;
}

function Item86Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[86, %count] = %w;
   return %count - 1;
}

function helper86(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h86" SPC %r TAB getWord("a b c d", 86 % 4);
   return %s;
}

function Item87Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[87, %count] = %w;
   return %count - 1;
}

function helper87(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h87" SPC %r TAB getWord("a b c d", 87 % 4);
   return %s;
}

function Item88Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[88, %count] = %w;
   return %count - 1;
}

function helper88(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h88" SPC %r TAB getWord("a b c d", 88 % 4);
   return %s;
}

function Item89Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[89, %count] = %w;
   return %count - 1;
}

function helper89(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h89" SPC %r TAB getWord("a b c d", 89 % 4);
   return %s;
}

function Item90Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[90, %count] = %w;
   return %count - 1;
}

function helper90(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h90" SPC %r TAB getWord("a b c d", 90 % 4);
   return %s;
}

function Item91Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[91, %count] = %w;
   return %count - 1;
}

function helper91(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h91" SPC %r TAB getWord("a b c d", 91 % 4);
   return %s;
}

function Item92Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[92, %count] = %w;
   return %count - 1;
}

function helper92(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h92" SPC %r TAB getWord("a b c d", 92 % 4);
   return %s;
}

function Item93Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[93, %count] = %w;
   return %count - 1;
}

function helper93(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h93" SPC %r TAB getWord("a b c d", 93 % 4);
   return %s;
}

function Item94Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[94, %count] = %w;
   return %count - 1;
}

function helper94(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h94" SPC %r TAB getWord("a b c d", 94 % 4);
   return %s;
}

function Item95Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[95, %count] = %w;
   return %count - 1;
}

function helper95(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h95" SPC %r TAB getWord("a b c d", 95 % 4);
   return %s;
}

function Item96Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[96, %count] = %w;
   return %count - 1;
}

function helper96(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h96" SPC %r TAB getWord("a b c d", 96 % 4);
   return %s;
}

function Item97Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[97, %count] = %w;
   return %count - 1;
}

function helper97(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h97" SPC %r TAB getWord("a b c d", 97 % 4);
   return %s;
}

function Item98Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[98, %count] = %w;
   return %count - 1;
}

function helper98(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h98" SPC %r TAB getWord("a b c d", 98 % 4);
   return %s;
}

function Item99Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[99, %count] = %w;
   return %count - 1;
}

function helper99(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h99" SPC %r TAB getWord("a b c d", 99 % 4);
   return %s;
}

function Item100Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[100, %count] = %w;
   return %count - 1;
}

function helper100(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h100" SPC %r TAB getWord("a b c d", 100 % 4);
   return %s;
}

function Item101Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[101, %count] = %w;
   return %count - 1;
}

function helper101(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h101" SPC %r TAB getWord("a b c d", 101 % 4);
   return %s;
}

function Item102Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[102, %count] = %w;
   return %count - 1;
}

function helper102(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h102" SPC %r TAB getWord("a b c d", 102 % 4);
   return %s;
}

function Item103Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[103, %count] = %w;
   return %count - 1;
}

function helper103(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h103" SPC %r TAB getWord("a b c d", 103 % 4);
   return %s;
}

function Item104Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[104, %count] = %w;
   return %count - 1;
}

function helper104(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h104" SPC %r TAB getWord("a b c d", 104 % 4);
   return %s;
}

function Item105Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[105, %count] = %w;
   return %count - 1;
}

function helper105(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h105" SPC %r TAB getWord("a b c d", 105 % 4);
   return %s;
}

function Item106Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[106, %count] = %w;
   return %count - 1;
}

function helper106(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h106" SPC %r TAB getWord("a b c d", 106 % 4);
   return %s;
}

function Item107Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[107, %count] = %w;
   return %count - 1;
}

function helper107(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h107" SPC %r TAB getWord("a b c d", 107 % 4);
   return %s;
}

function Item108Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[108, %count] = %w;
   return %count - 1;
}

function helper108(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h108" SPC %r TAB getWord("a b c d", 108 % 4);
   return %s;
}

function Item109Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[109, %count] = %w;
   return %count - 1;
}

function helper109(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h109" SPC %r TAB getWord("a b c d", 109 % 4);
   return %s;
}

function Item110Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[110, %count] = %w;
   return %count - 1;
}

function helper110(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h110" SPC %r TAB getWord("a b c d", 110 % 4);
   return %s;
}

function Item111Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[111, %count] = %w;
   return %count - 1;
}

function helper111(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h111" SPC %r TAB getWord("a b c d", 111 % 4);
   return %s;
}

function Item112Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[112, %count] = %w;
   return %count - 1;
}

function helper112(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h112" SPC %r TAB getWord("a b c d", 112 % 4);
   return %s;
}

function Item113Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[113, %count] = %w;
   return %count - 1;
}

function helper113(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h113" SPC %r TAB getWord("a b c d", 113 % 4);
   return %s;
}

function Item114Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[114, %count] = %w;
   return %count - 1;
}

function helper114(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h114" SPC %r TAB getWord("a b c d", 114 % 4);
   return %s;
}

function Item115Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[115, %count] = %w;
   return %count - 1;
}

function helper115(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h115" SPC %r TAB getWord("a b c d", 115 % 4);
   return %s;
}

function Item116Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[116, %count] = %w;
   return %count - 1;
}

function helper116(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h116" SPC %r TAB getWord("a b c d", 116 % 4);
   return %s;
}

function Item117Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[117, %count] = %w;
   return %count - 1;
}

function helper117(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h117" SPC %r TAB getWord("a b c d", 117 % 4);
   return %s;
}

function Item118Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[118, %count] = %w;
   return %count - 1;
}

function helper118(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h118" SPC %r TAB getWord("a b c d", 118 % 4);
   return %s;
}

function Item119Data::onUse(%data, %obj)
{
   %count = %obj.inv[%data.getName()];
   if (%count <= 0)
      return 0;
   %obj.inv[%data.getName()] = %count - 1;
   switch (%data.mass)
   {
      case 1: %w = "light";
      case 2 or 3: %w = "medium";
      default: %w = "heavy";
   }
   $UseLog[119, %count] = %w;
   return %count - 1;
}

function helper119(%a, %b)
{
   %r = 0;
   for (%k = 0; %k < %a; %k++)
   {
      if (%k % 2 == 0)
         %r += %k * %b;
      else
         %r -= %b;
   }
   %s = "h119" SPC %r TAB getWord("a b c d", 119 % 4);
   return %s;
}

new SimGroup(GeneratedGroup) {
   new ScriptObject(GenObj0) {
      class = GenClass0;
      value = "0";
      label = "object \"0\"";
      pos = "0 0 0";
   };
   new ScriptObject(GenObj1) {
      class = GenClass1;
      value = "1";
      label = "object \"1\"";
      pos = "1 2 3";
   };
   new ScriptObject(GenObj2) {
      class = GenClass2;
      value = "2";
      label = "object \"2\"";
      pos = "2 4 6";
   };
   new ScriptObject(GenObj3) {
      class = GenClass3;
      value = "3";
      label = "object \"3\"";
      pos = "3 6 9";
   };
   new ScriptObject(GenObj4) {
      class = GenClass4;
      value = "4";
      label = "object \"4\"";
      pos = "4 8 12";
   };
   new ScriptObject(GenObj5) {
      class = GenClass0;
      value = "5";
      label = "object \"5\"";
      pos = "5 10 15";
   };
   new ScriptObject(GenObj6) {
      class = GenClass1;
      value = "6";
      label = "object \"6\"";
      pos = "6 12 18";
   };
   new ScriptObject(GenObj7) {
      class = GenClass2;
      value = "7";
      label = "object \"7\"";
      pos = "7 14 21";
   };
   new ScriptObject(GenObj8) {
      class = GenClass3;
      value = "8";
      label = "object \"8\"";
      pos = "8 16 24";
   };
   new ScriptObject(GenObj9) {
      class = GenClass4;
      value = "9";
      label = "object \"9\"";
      pos = "9 18 27";
   };
   new ScriptObject(GenObj10) {
      class = GenClass0;
      value = "10";
      label = "object \"10\"";
      pos = "10 20 30";
   };
   new ScriptObject(GenObj11) {
      class = GenClass1;
      value = "11";
      label = "object \"11\"";
      pos = "11 22 33";
   };
   new ScriptObject(GenObj12) {
      class = GenClass2;
      value = "12";
      label = "object \"12\"";
      pos = "12 24 36";
   };
   new ScriptObject(GenObj13) {
      class = GenClass3;
      value = "13";
      label = "object \"13\"";
      pos = "13 26 39";
   };
   new ScriptObject(GenObj14) {
      class = GenClass4;
      value = "14";
      label = "object \"14\"";
      pos = "14 28 42";
   };
   new ScriptObject(GenObj15) {
      class = GenClass0;
      value = "15";
      label = "object \"15\"";
      pos = "15 30 45";
   };
   new ScriptObject(GenObj16) {
      class = GenClass1;
      value = "16";
      label = "object \"16\"";
      pos = "16 32 48";
   };
   new ScriptObject(GenObj17) {
      class = GenClass2;
      value = "17";
      label = "object \"17\"";
      pos = "17 34 51";
   };
   new ScriptObject(GenObj18) {
      class = GenClass3;
      value = "18";
      label = "object \"18\"";
      pos = "18 36 54";
   };
   new ScriptObject(GenObj19) {
      class = GenClass4;
      value = "19";
      label = "object \"19\"";
      pos = "19 38 57";
   };
   new ScriptObject(GenObj20) {
      class = GenClass0;
      value = "20";
      label = "object \"20\"";
      pos = "20 40 60";
   };
   new ScriptObject(GenObj21) {
      class = GenClass1;
      value = "21";
      label = "object \"21\"";
      pos = "21 42 63";
   };
   new ScriptObject(GenObj22) {
      class = GenClass2;
      value = "22";
      label = "object \"22\"";
      pos = "22 44 66";
   };
   new ScriptObject(GenObj23) {
      class = GenClass3;
      value = "23";
      label = "object \"23\"";
      pos = "23 46 69";
   };
   new ScriptObject(GenObj24) {
      class = GenClass4;
      value = "24";
      label = "object \"24\"";
      pos = "24 48 72";
   };
   new ScriptObject(GenObj25) {
      class = GenClass0;
      value = "25";
      label = "object \"25\"";
      pos = "25 50 75";
   };
   new ScriptObject(GenObj26) {
      class = GenClass1;
      value = "26";
      label = "object \"26\"";
      pos = "26 52 78";
   };
   new ScriptObject(GenObj27) {
      class = GenClass2;
      value = "27";
      label = "object \"27\"";
      pos = "27 54 81";
   };
   new ScriptObject(GenObj28) {
      class = GenClass3;
      value = "28";
      label = "object \"28\"";
      pos = "28 56 84";
   };
   new ScriptObject(GenObj29) {
      class = GenClass4;
      value = "29";
      label = "object \"29\"";
      pos = "29 58 87";
   };
   new ScriptObject(GenObj30) {
      class = GenClass0;
      value = "30";
      label = "object \"30\"";
      pos = "30 60 90";
   };
   new ScriptObject(GenObj31) {
      class = GenClass1;
      value = "31";
      label = "object \"31\"";
      pos = "31 62 93";
   };
   new ScriptObject(GenObj32) {
      class = GenClass2;
      value = "32";
      label = "object \"32\"";
      pos = "32 64 96";
   };
   new ScriptObject(GenObj33) {
      class = GenClass3;
      value = "33";
      label = "object \"33\"";
      pos = "33 66 99";
   };
   new ScriptObject(GenObj34) {
      class = GenClass4;
      value = "34";
      label = "object \"34\"";
      pos = "34 68 102";
   };
   new ScriptObject(GenObj35) {
      class = GenClass0;
      value = "35";
      label = "object \"35\"";
      pos = "35 70 105";
   };
   new ScriptObject(GenObj36) {
      class = GenClass1;
      value = "36";
      label = "object \"36\"";
      pos = "36 72 108";
   };
   new ScriptObject(GenObj37) {
      class = GenClass2;
      value = "37";
      label = "object \"37\"";
      pos = "37 74 111";
   };
   new ScriptObject(GenObj38) {
      class = GenClass3;
      value = "38";
      label = "object \"38\"";
      pos = "38 76 114";
   };
   new ScriptObject(GenObj39) {
      class = GenClass4;
      value = "39";
      label = "object \"39\"";
      pos = "39 78 117";
   };
   new ScriptObject(GenObj40) {
      class = GenClass0;
      value = "40";
      label = "object \"40\"";
      pos = "40 80 120";
   };
   new ScriptObject(GenObj41) {
      class = GenClass1;
      value = "41";
      label = "object \"41\"";
      pos = "41 82 123";
   };
   new ScriptObject(GenObj42) {
      class = GenClass2;
      value = "42";
      label = "object \"42\"";
      pos = "42 84 126";
   };
   new ScriptObject(GenObj43) {
      class = GenClass3;
      value = "43";
      label = "object \"43\"";
      pos = "43 86 129";
   };
   new ScriptObject(GenObj44) {
      class = GenClass4;
      value = "44";
      label = "object \"44\"";
      pos = "44 88 132";
   };
   new ScriptObject(GenObj45) {
      class = GenClass0;
      value = "45";
      label = "object \"45\"";
      pos = "45 90 135";
   };
   new ScriptObject(GenObj46) {
      class = GenClass1;
      value = "46";
      label = "object \"46\"";
      pos = "46 92 138";
   };
   new ScriptObject(GenObj47) {
      class = GenClass2;
      value = "47";
      label = "object \"47\"";
      pos = "47 94 141";
   };
   new ScriptObject(GenObj48) {
      class = GenClass3;
      value = "48";
      label = "object \"48\"";
      pos = "48 96 144";
   };
   new ScriptObject(GenObj49) {
      class = GenClass4;
      value = "49";
      label = "object \"49\"";
      pos = "49 98 147";
   };
   new ScriptObject(GenObj50) {
      class = GenClass0;
      value = "50";
      label = "object \"50\"";
      pos = "50 100 150";
   };
   new ScriptObject(GenObj51) {
      class = GenClass1;
      value = "51";
      label = "object \"51\"";
      pos = "51 102 153";
   };
   new ScriptObject(GenObj52) {
      class = GenClass2;
      value = "52";
      label = "object \"52\"";
      pos = "52 104 156";
   };
   new ScriptObject(GenObj53) {
      class = GenClass3;
      value = "53";
      label = "object \"53\"";
      pos = "53 106 159";
   };
   new ScriptObject(GenObj54) {
      class = GenClass4;
      value = "54";
      label = "object \"54\"";
      pos = "54 108 162";
   };
   new ScriptObject(GenObj55) {
      class = GenClass0;
      value = "55";
      label = "object \"55\"";
      pos = "55 110 165";
   };
   new ScriptObject(GenObj56) {
      class = GenClass1;
      value = "56";
      label = "object \"56\"";
      pos = "56 112 168";
   };
   new ScriptObject(GenObj57) {
      class = GenClass2;
      value = "57";
      label = "object \"57\"";
      pos = "57 114 171";
   };
   new ScriptObject(GenObj58) {
      class = GenClass3;
      value = "58";
      label = "object \"58\"";
      pos = "58 116 174";
   };
   new ScriptObject(GenObj59) {
      class = GenClass4;
      value = "59";
      label = "object \"59\"";
      pos = "59 118 177";
   };
   new ScriptObject(GenObj60) {
      class = GenClass0;
      value = "60";
      label = "object \"60\"";
      pos = "60 120 180";
   };
   new ScriptObject(GenObj61) {
      class = GenClass1;
      value = "61";
      label = "object \"61\"";
      pos = "61 122 183";
   };
   new ScriptObject(GenObj62) {
      class = GenClass2;
      value = "62";
      label = "object \"62\"";
      pos = "62 124 186";
   };
   new ScriptObject(GenObj63) {
      class = GenClass3;
      value = "63";
      label = "object \"63\"";
      pos = "63 126 189";
   };
   new ScriptObject(GenObj64) {
      class = GenClass4;
      value = "64";
      label = "object \"64\"";
      pos = "64 128 192";
   };
   new ScriptObject(GenObj65) {
      class = GenClass0;
      value = "65";
      label = "object \"65\"";
      pos = "65 130 195";
   };
   new ScriptObject(GenObj66) {
      class = GenClass1;
      value = "66";
      label = "object \"66\"";
      pos = "66 132 198";
   };
   new ScriptObject(GenObj67) {
      class = GenClass2;
      value = "67";
      label = "object \"67\"";
      pos = "67 134 201";
   };
   new ScriptObject(GenObj68) {
      class = GenClass3;
      value = "68";
      label = "object \"68\"";
      pos = "68 136 204";
   };
   new ScriptObject(GenObj69) {
      class = GenClass4;
      value = "69";
      label = "object \"69\"";
      pos = "69 138 207";
   };
   new ScriptObject(GenObj70) {
      class = GenClass0;
      value = "70";
      label = "object \"70\"";
      pos = "70 140 210";
   };
   new ScriptObject(GenObj71) {
      class = GenClass1;
      value = "71";
      label = "object \"71\"";
      pos = "71 142 213";
   };
   new ScriptObject(GenObj72) {
      class = GenClass2;
      value = "72";
      label = "object \"72\"";
      pos = "72 144 216";
   };
   new ScriptObject(GenObj73) {
      class = GenClass3;
      value = "73";
      label = "object \"73\"";
      pos = "73 146 219";
   };
   new ScriptObject(GenObj74) {
      class = GenClass4;
      value = "74";
      label = "object \"74\"";
      pos = "74 148 222";
   };
   new ScriptObject(GenObj75) {
      class = GenClass0;
      value = "75";
      label = "object \"75\"";
      pos = "75 150 225";
   };
   new ScriptObject(GenObj76) {
      class = GenClass1;
      value = "76";
      label = "object \"76\"";
      pos = "76 152 228";
   };
   new ScriptObject(GenObj77) {
      class = GenClass2;
      value = "77";
      label = "object \"77\"";
      pos = "77 154 231";
   };
   new ScriptObject(GenObj78) {
      class = GenClass3;
      value = "78";
      label = "object \"78\"";
      pos = "78 156 234";
   };
   new ScriptObject(GenObj79) {
      class = GenClass4;
      value = "79";
      label = "object \"79\"";
      pos = "79 158 237";
   };
   new ScriptObject(GenObj80) {
      class = GenClass0;
      value = "80";
      label = "object \"80\"";
      pos = "80 160 240";
   };
   new ScriptObject(GenObj81) {
      class = GenClass1;
      value = "81";
      label = "object \"81\"";
      pos = "81 162 243";
   };
   new ScriptObject(GenObj82) {
      class = GenClass2;
      value = "82";
      label = "object \"82\"";
      pos = "82 164 246";
   };
   new ScriptObject(GenObj83) {
      class = GenClass3;
      value = "83";
      label = "object \"83\"";
      pos = "83 166 249";
   };
   new ScriptObject(GenObj84) {
      class = GenClass4;
      value = "84";
      label = "object \"84\"";
      pos = "84 168 252";
   };
   new ScriptObject(GenObj85) {
      class = GenClass0;
      value = "85";
      label = "object \"85\"";
      pos = "85 170 255";
   };
   new ScriptObject(GenObj86) {
      class = GenClass1;
      value = "86";
      label = "object \"86\"";
      pos = "86 172 258";
   };
   new ScriptObject(GenObj87) {
      class = GenClass2;
      value = "87";
      label = "object \"87\"";
      pos = "87 174 261";
   };
   new ScriptObject(GenObj88) {
      class = GenClass3;
      value = "88";
      label = "object \"88\"";
      pos = "88 176 264";
   };
   new ScriptObject(GenObj89) {
      class = GenClass4;
      value = "89";
      label = "object \"89\"";
      pos = "89 178 267";
   };
   new ScriptObject(GenObj90) {
      class = GenClass0;
      value = "90";
      label = "object \"90\"";
      pos = "90 180 270";
   };
   new ScriptObject(GenObj91) {
      class = GenClass1;
      value = "91";
      label = "object \"91\"";
      pos = "91 182 273";
   };
   new ScriptObject(GenObj92) {
      class = GenClass2;
      value = "92";
      label = "object \"92\"";
      pos = "92 184 276";
   };
   new ScriptObject(GenObj93) {
      class = GenClass3;
      value = "93";
      label = "object \"93\"";
      pos = "93 186 279";
   };
   new ScriptObject(GenObj94) {
      class = GenClass4;
      value = "94";
      label = "object \"94\"";
      pos = "94 188 282";
   };
   new ScriptObject(GenObj95) {
      class = GenClass0;
      value = "95";
      label = "object \"95\"";
      pos = "95 190 285";
   };
   new ScriptObject(GenObj96) {
      class = GenClass1;
      value = "96";
      label = "object \"96\"";
      pos = "96 192 288";
   };
   new ScriptObject(GenObj97) {
      class = GenClass2;
      value = "97";
      label = "object \"97\"";
      pos = "97 194 291";
   };
   new ScriptObject(GenObj98) {
      class = GenClass3;
      value = "98";
      label = "object \"98\"";
      pos = "98 196 294";
   };
   new ScriptObject(GenObj99) {
      class = GenClass4;
      value = "99";
      label = "object \"99\"";
      pos = "99 198 297";
   };
   new ScriptObject(GenObj100) {
      class = GenClass0;
      value = "100";
      label = "object \"100\"";
      pos = "100 200 300";
   };
   new ScriptObject(GenObj101) {
      class = GenClass1;
      value = "101";
      label = "object \"101\"";
      pos = "101 202 303";
   };
   new ScriptObject(GenObj102) {
      class = GenClass2;
      value = "102";
      label = "object \"102\"";
      pos = "102 204 306";
   };
   new ScriptObject(GenObj103) {
      class = GenClass3;
      value = "103";
      label = "object \"103\"";
      pos = "103 206 309";
   };
   new ScriptObject(GenObj104) {
      class = GenClass4;
      value = "104";
      label = "object \"104\"";
      pos = "104 208 312";
   };
   new ScriptObject(GenObj105) {
      class = GenClass0;
      value = "105";
      label = "object \"105\"";
      pos = "105 210 315";
   };
   new ScriptObject(GenObj106) {
      class = GenClass1;
      value = "106";
      label = "object \"106\"";
      pos = "106 212 318";
   };
   new ScriptObject(GenObj107) {
      class = GenClass2;
      value = "107";
      label = "object \"107\"";
      pos = "107 214 321";
   };
   new ScriptObject(GenObj108) {
      class = GenClass3;
      value = "108";
      label = "object \"108\"";
      pos = "108 216 324";
   };
   new ScriptObject(GenObj109) {
      class = GenClass4;
      value = "109";
      label = "object \"109\"";
      pos = "109 218 327";
   };
   new ScriptObject(GenObj110) {
      class = GenClass0;
      value = "110";
      label = "object \"110\"";
      pos = "110 220 330";
   };
   new ScriptObject(GenObj111) {
      class = GenClass1;
      value = "111";
      label = "object \"111\"";
      pos = "111 222 333";
   };
   new ScriptObject(GenObj112) {
      class = GenClass2;
      value = "112";
      label = "object \"112\"";
      pos = "112 224 336";
   };
   new ScriptObject(GenObj113) {
      class = GenClass3;
      value = "113";
      label = "object \"113\"";
      pos = "113 226 339";
   };
   new ScriptObject(GenObj114) {
      class = GenClass4;
      value = "114";
      label = "object \"114\"";
      pos = "114 228 342";
   };
   new ScriptObject(GenObj115) {
      class = GenClass0;
      value = "115";
      label = "object \"115\"";
      pos = "115 230 345";
   };
   new ScriptObject(GenObj116) {
      class = GenClass1;
      value = "116";
      label = "object \"116\"";
      pos = "116 232 348";
   };
   new ScriptObject(GenObj117) {
      class = GenClass2;
      value = "117";
      label = "object \"117\"";
      pos = "117 234 351";
   };
   new ScriptObject(GenObj118) {
      class = GenClass3;
      value = "118";
      label = "object \"118\"";
      pos = "118 236 354";
   };
   new ScriptObject(GenObj119) {
      class = GenClass4;
      value = "119";
      label = "object \"119\"";
      pos = "119 238 357";
   };
   new ScriptObject(GenObj120) {
      class = GenClass0;
      value = "120";
      label = "object \"120\"";
      pos = "120 240 360";
   };
   new ScriptObject(GenObj121) {
      class = GenClass1;
      value = "121";
      label = "object \"121\"";
      pos = "121 242 363";
   };
   new ScriptObject(GenObj122) {
      class = GenClass2;
      value = "122";
      label = "object \"122\"";
      pos = "122 244 366";
   };
   new ScriptObject(GenObj123) {
      class = GenClass3;
      value = "123";
      label = "object \"123\"";
      pos = "123 246 369";
   };
   new ScriptObject(GenObj124) {
      class = GenClass4;
      value = "124";
      label = "object \"124\"";
      pos = "124 248 372";
   };
   new ScriptObject(GenObj125) {
      class = GenClass0;
      value = "125";
      label = "object \"125\"";
      pos = "125 250 375";
   };
   new ScriptObject(GenObj126) {
      class = GenClass1;
      value = "126";
      label = "object \"126\"";
      pos = "126 252 378";
   };
   new ScriptObject(GenObj127) {
      class = GenClass2;
      value = "127";
      label = "object \"127\"";
      pos = "127 254 381";
   };
   new ScriptObject(GenObj128) {
      class = GenClass3;
      value = "128";
      label = "object \"128\"";
      pos = "128 256 384";
   };
   new ScriptObject(GenObj129) {
      class = GenClass4;
      value = "129";
      label = "object \"129\"";
      pos = "129 258 387";
   };
   new ScriptObject(GenObj130) {
      class = GenClass0;
      value = "130";
      label = "object \"130\"";
      pos = "130 260 390";
   };
   new ScriptObject(GenObj131) {
      class = GenClass1;
      value = "131";
      label = "object \"131\"";
      pos = "131 262 393";
   };
   new ScriptObject(GenObj132) {
      class = GenClass2;
      value = "132";
      label = "object \"132\"";
      pos = "132 264 396";
   };
   new ScriptObject(GenObj133) {
      class = GenClass3;
      value = "133";
      label = "object \"133\"";
      pos = "133 266 399";
   };
   new ScriptObject(GenObj134) {
      class = GenClass4;
      value = "134";
      label = "object \"134\"";
      pos = "134 268 402";
   };
   new ScriptObject(GenObj135) {
      class = GenClass0;
      value = "135";
      label = "object \"135\"";
      pos = "135 270 405";
   };
   new ScriptObject(GenObj136) {
      class = GenClass1;
      value = "136";
      label = "object \"136\"";
      pos = "136 272 408";
   };
   new ScriptObject(GenObj137) {
      class = GenClass2;
      value = "137";
      label = "object \"137\"";
      pos = "137 274 411";
   };
   new ScriptObject(GenObj138) {
      class = GenClass3;
      value = "138";
      label = "object \"138\"";
      pos = "138 276 414";
   };
   new ScriptObject(GenObj139) {
      class = GenClass4;
      value = "139";
      label = "object \"139\"";
      pos = "139 278 417";
   };
   new ScriptObject(GenObj140) {
      class = GenClass0;
      value = "140";
      label = "object \"140\"";
      pos = "140 280 420";
   };
   new ScriptObject(GenObj141) {
      class = GenClass1;
      value = "141";
      label = "object \"141\"";
      pos = "141 282 423";
   };
   new ScriptObject(GenObj142) {
      class = GenClass2;
      value = "142";
      label = "object \"142\"";
      pos = "142 284 426";
   };
   new ScriptObject(GenObj143) {
      class = GenClass3;
      value = "143";
      label = "object \"143\"";
      pos = "143 286 429";
   };
   new ScriptObject(GenObj144) {
      class = GenClass4;
      value = "144";
      label = "object \"144\"";
      pos = "144 288 432";
   };
   new ScriptObject(GenObj145) {
      class = GenClass0;
      value = "145";
      label = "object \"145\"";
      pos = "145 290 435";
   };
   new ScriptObject(GenObj146) {
      class = GenClass1;
      value = "146";
      label = "object \"146\"";
      pos = "146 292 438";
   };
   new ScriptObject(GenObj147) {
      class = GenClass2;
      value = "147";
      label = "object \"147\"";
      pos = "147 294 441";
   };
   new ScriptObject(GenObj148) {
      class = GenClass3;
      value = "148";
      label = "object \"148\"";
      pos = "148 296 444";
   };
   new ScriptObject(GenObj149) {
      class = GenClass4;
      value = "149";
      label = "object \"149\"";
      pos = "149 298 447";
   };
};

function GenClass0::describe(%this)
{
   return "GenClass0:" @ %this.value;
}

function GenClass1::describe(%this)
{
   return "GenClass1:" @ %this.value;
}

function GenClass2::describe(%this)
{
   return "GenClass2:" @ %this.value;
}

function GenClass3::describe(%this)
{
   return "GenClass3:" @ %this.value;
}

function GenClass4::describe(%this)
{
   return "GenClass4:" @ %this.value;
}

function runGenerated()
{
$total = 0;
for (%i = 0; %i < GeneratedGroup.getCount(); %i++)
   $total += GeneratedGroup.getObject(%i).value;
%o = new ScriptObject() { };
for (%i = 0; %i < 120; %i++)
{
   %db = "Item" @ %i @ "Data";
   %o.inv[%db] = 2;
   %db.onUse(%o);
}
%o.delete();
$h = 0;
for (%i = 0; %i < 120; %i++)
   $h += getWord(call("helper" @ %i, 10, 2), 1);
}
runGenerated();
echo("generated: " @ $total SPC GenObj42.describe() SPC GenObj43.describe() SPC Item7Data.mass SPC $UseLog[7, 2] SPC $h);
